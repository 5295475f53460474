package benchmarks

import (
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/waltz-go/waltz"
)

// handOps is the API on waltz with plain handlers: each reads its inputs
// with Param, Query, strconv and Bind, checks them by hand, and answers a
// failure with a JSON list of the fields it breaks.
func handOps() http.Handler {
	r := waltz.New()
	r.Get("/orgs/:org/items/:id", handGet)
	r.Post("/orgs/:org/items", handPost)
	return r
}

// handQueryOps is handOps with a QUERY in the POST's place: post's
// handler, for a QUERY of JSON, answered 200, for the query case.
func handQueryOps() http.Handler {
	r := waltz.New()
	r.Get("/orgs/:org/items/:id", handGet)
	r.Query("/orgs/:org/items", handQuery).Accepts("application/json")
	return r
}

// handFault is one broken rule, as the hand-written handlers report it.
type handFault struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type handFaults struct {
	Errors []handFault `json:"errors"`
}

func handGet(c *waltz.Context) error {
	var faults []handFault
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		faults = append(faults, handFault{"path.id", "must be an integer"})
	}
	limit := 20
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			faults = append(faults, handFault{"query.limit", "must be an integer"})
		case n < 1 || n > 100:
			faults = append(faults, handFault{"query.limit", "must be from 1 to 100"})
		}
		limit = n
	}
	var archived bool
	if s := c.Query("archived"); s != "" {
		if archived, err = strconv.ParseBool(s); err != nil {
			faults = append(faults, handFault{"query.archived", "must be true or false"})
		}
	}
	sort := c.Query("sort")
	switch sort {
	case "":
		sort = "created"
	case "created", "updated", "name":
	default:
		faults = append(faults, handFault{"query.sort", "must be one of created, updated, name"})
	}
	if faults != nil {
		return c.JSON(http.StatusBadRequest, handFaults{faults})
	}
	return c.JSON(http.StatusOK, opItem{Org: c.Param("org"), ID: id, Limit: limit, Archived: archived, Sort: sort})
}

// handBody is the POST body; pointers tell a missing field from a zero.
type handBody struct {
	Name     *string  `json:"name"`
	Priority *int     `json:"priority"`
	Tags     []string `json:"tags"`
}

func handPost(c *waltz.Context) error { return handCreate(c, http.StatusCreated) }

func handQuery(c *waltz.Context) error { return handCreate(c, http.StatusOK) }

// handCreate reads and checks post's body, and answers the item with
// status.
func handCreate(c *waltz.Context, status int) error {
	var in handBody
	if err := c.Bind(&in); err != nil {
		return err
	}
	var faults []handFault
	switch {
	case in.Name == nil:
		faults = append(faults, handFault{"body.name", "is required"})
	case *in.Name == "" || utf8.RuneCountInString(*in.Name) > 64:
		faults = append(faults, handFault{"body.name", "must be 1 to 64 characters"})
	}
	switch {
	case in.Priority == nil:
		faults = append(faults, handFault{"body.priority", "is required"})
	case *in.Priority < 1 || *in.Priority > 5:
		faults = append(faults, handFault{"body.priority", "must be from 1 to 5"})
	}
	if len(in.Tags) > 8 {
		faults = append(faults, handFault{"body.tags", "must have at most 8 items"})
	}
	if faults != nil {
		return c.JSON(http.StatusUnprocessableEntity, handFaults{faults})
	}
	return c.JSON(status, opItem{Org: c.Param("org"), ID: 1, Name: *in.Name, Priority: *in.Priority, Tags: in.Tags})
}
