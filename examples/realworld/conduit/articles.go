package conduit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/waltz-go/waltz"
)

// ArticleItem is an article in a list: the spec's list item, an Article
// without its body.
type ArticleItem struct {
	Slug           string   `json:"slug"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	TagList        []string `json:"tagList" doc:"sorted"`
	CreatedAt      string   `json:"createdAt" format:"date-time"`
	UpdatedAt      string   `json:"updatedAt" format:"date-time"`
	Favorited      bool     `json:"favorited" doc:"whether the user who asks has favorited it"`
	FavoritesCount int      `json:"favoritesCount" minimum:"0"`
	Author         Profile  `json:"author"`
}

// Article is the spec's Article.
type Article struct {
	ArticleItem
	Body string `json:"body"`
}

// ArticleOut is the answer of the operations on one article.
type ArticleOut struct {
	Body struct {
		Article Article `json:"article"`
	}
}

// ArticlesOut is a page of articles, newest first, and how many there are
// on every page.
type ArticlesOut struct {
	Body struct {
		Articles      []ArticleItem `json:"articles"`
		ArticlesCount int           `json:"articlesCount" minimum:"0"`
	}
}

// Page is the paging of a list.
type Page struct {
	Offset int `query:"offset" minimum:"0" doc:"The number of items to skip before starting to collect the result set."`
	Limit  int `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"The numbers of items to return."`
}

// ArticlesIn is the input of GET /api/articles.
type ArticlesIn struct {
	Tag       string `query:"tag" doc:"Filter by tag"`
	Author    string `query:"author" doc:"Filter by author (username)"`
	Favorited string `query:"favorited" doc:"Filter by favorites of a user (username)"`
	Page
}

// FeedIn is the input of GET /api/articles/feed.
type FeedIn struct{ Page }

// SlugIn names an article by the path.
type SlugIn struct {
	Slug string `path:"slug" doc:"the article's slug"`
}

// NewArticle is the spec's NewArticle.
type NewArticle struct {
	Title       string   `json:"title" minLength:"1" maxLength:"256"`
	Description string   `json:"description" minLength:"1" maxLength:"1024"`
	Body        string   `json:"body" minLength:"1" maxLength:"65536"`
	TagList     []string `json:"tagList,omitempty" maxItems:"16" doc:"each tag at most 64 characters; repeats count once"`
}

// NewArticleIn is the input of POST /api/articles.
type NewArticleIn struct {
	Body struct {
		Article NewArticle `json:"article"`
	}
}

// UpdateArticle is the spec's UpdateArticle: the members sent are
// changed, the others (left out or null) kept. A new title makes a new
// slug.
type UpdateArticle struct {
	Title       *string `json:"title,omitempty" minLength:"1" maxLength:"256"`
	Description *string `json:"description,omitempty" minLength:"1" maxLength:"1024"`
	Body        *string `json:"body,omitempty" minLength:"1" maxLength:"65536"`
}

// UpdateArticleIn is the input of PUT /api/articles/:slug.
type UpdateArticleIn struct {
	SlugIn
	Body struct {
		Article UpdateArticle `json:"article"`
	}
}

// TagsOut is the answer of GET /api/tags.
type TagsOut struct {
	Body struct {
		Tags []string `json:"tags" doc:"every tag of an article, sorted"`
	}
}

// articleSelect reads an article (ArticleItem's members, in order) as the
// user $1 sees it; 0 is nobody, who favorites and follows nothing.
const articleSelect = `SELECT a.slug, a.title, a.description, a.tag_list, a.created_at, a.updated_at,
	(SELECT COUNT(*) FROM favorites f WHERE f.article_id = a.id),
	EXISTS (SELECT 1 FROM favorites f WHERE f.article_id = a.id AND f.user_id = $1),
	u.username, u.bio, u.image,
	EXISTS (SELECT 1 FROM follows w WHERE w.follower_id = $1 AND w.followee_id = a.author_id)`

// articleFrom is the articles with their authors; articleFilter keeps
// those with the tag $2, by the author $3, favorited by $4, and, with $5
// true, by authors the user $1 follows. An empty string filters nothing.
// The filter reads the articles alone, so that counting them needs no
// join.
const (
	articleFrom   = ` FROM articles a JOIN users u ON u.id = a.author_id `
	articleFilter = `WHERE ($2 = '' OR a.id IN (SELECT article_id FROM article_tags WHERE tag = $2))
	AND ($3 = '' OR a.author_id IN (SELECT id FROM users WHERE username = $3))
	AND ($4 = '' OR a.id IN (SELECT f.article_id FROM favorites f JOIN users v ON v.id = f.user_id WHERE v.username = $4))
	AND ($5 = FALSE OR a.author_id IN (SELECT followee_id FROM follows WHERE follower_id = $1))`
)

// scanItem reads a row of articleSelect's columns, and then more, into it.
func scanItem(row interface{ Scan(...any) error }, it *ArticleItem, more ...any) error {
	var tags string
	var created, updated int64
	p := &it.Author
	if err := row.Scan(append([]any{&it.Slug, &it.Title, &it.Description, &tags, &created, &updated, &it.FavoritesCount,
		&it.Favorited, &p.Username, &p.Bio, &p.Image, &p.Following}, more...)...); err != nil {
		return err
	}
	it.CreatedAt, it.UpdatedAt = timestamp(created), timestamp(updated)
	return json.Unmarshal([]byte(tags), &it.TagList)
}

// list answers a page of the articles the filters keep (see articleFilter).
func (a *app) list(ctx context.Context, page Page, args ...any) (*ArticlesOut, error) {
	out := &ArticlesOut{}
	out.Body.Articles = make([]ArticleItem, 0, page.Limit)
	if err := a.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM articles a "+articleFilter, args...).Scan(&out.Body.ArticlesCount); err != nil {
		return nil, err
	}
	if page.Offset >= out.Body.ArticlesCount {
		return out, nil
	}
	rows, err := a.db.QueryContext(ctx, articleSelect+articleFrom+articleFilter+" ORDER BY a.created_at DESC, a.id DESC LIMIT $6 OFFSET $7",
		append(args, page.Limit, page.Offset)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		out.Body.Articles = append(out.Body.Articles, ArticleItem{})
		if err := scanItem(rows, &out.Body.Articles[len(out.Body.Articles)-1]); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

func (a *app) articles(c *waltz.Context, in *ArticlesIn) (*ArticlesOut, error) {
	return a.list(c.Request.Context(), in.Page, viewer(c), in.Tag, in.Author, in.Favorited, false)
}

func (a *app) feed(c *waltz.Context, in *FeedIn) (*ArticlesOut, error) {
	return a.list(c.Request.Context(), in.Page, viewer(c), "", "", "", true)
}

// read answers the article slug as the user who asks sees it.
func (a *app) read(c *waltz.Context, slug string) (*ArticleOut, error) {
	out := &ArticleOut{}
	err := scanItem(a.db.QueryRowContext(c.Request.Context(), articleSelect+", a.body"+articleFrom+"WHERE a.slug = $2", viewer(c), slug),
		&out.Body.Article.ArticleItem, &out.Body.Article.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("article", slug)
	}
	return out, err
}

func (a *app) article(c *waltz.Context, in *SlugIn) (*ArticleOut, error) {
	return a.read(c, in.Slug)
}

func (a *app) createArticle(c *waltz.Context, in *NewArticleIn) (*ArticleOut, error) {
	ar := &in.Body.Article
	tags, err := tagSet(ar.TagList)
	if err != nil {
		return nil, err
	}
	list, _ := json.Marshal(tags)
	ctx, now := c.Request.Context(), time.Now().UnixMicro()
	slug, err := a.withSlug(ctx, ar.Title, func(tx *sql.Tx, slug string) error {
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO articles (slug, author_id, title, description, body, tag_list, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`, slug, viewer(c), ar.Title, ar.Description, ar.Body, string(list), now).Scan(&id); err != nil {
			return err
		}
		for _, t := range tags {
			if _, err := tx.ExecContext(ctx, "INSERT INTO article_tags (article_id, tag) VALUES ($1, $2)", id, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a.read(c, slug)
}

func (a *app) updateArticle(c *waltz.Context, in *UpdateArticleIn) (*ArticleOut, error) {
	ar := &in.Body.Article
	title := "" // no new title: the slug stays
	if ar.Title != nil {
		title = *ar.Title
	}
	ctx := c.Request.Context()
	keep := ar.Title == nil
	if !keep {
		// A title whose slug is the old title's keeps the article's slug,
		// suffix and all: an editor that sends the title back unchanged
		// does not move the article to a new URL.
		var old string
		err := a.db.QueryRowContext(ctx, "SELECT title FROM articles WHERE slug = $1", in.Slug).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		keep = err == nil && slugify(old) == slugify(title)
	}
	slug, err := a.withSlug(ctx, title, func(tx *sql.Tx, slug string) error {
		if keep {
			slug = in.Slug
		}
		res, err := tx.ExecContext(ctx, `UPDATE articles SET slug = $3, title = COALESCE($4, title), description = COALESCE($5, description),
			body = COALESCE($6, body), updated_at = $7 WHERE slug = $2 AND author_id = $1`,
			viewer(c), in.Slug, slug, ar.Title, ar.Description, ar.Body, time.Now().UnixMicro())
		return changed(ctx, tx, res, err, "article", "SELECT author_id FROM articles WHERE slug = $1", in.Slug)
	})
	if err != nil {
		return nil, err
	}
	if keep {
		slug = in.Slug
	}
	return a.read(c, slug)
}

func (a *app) deleteArticle(c *waltz.Context, in *SlugIn) (*struct{}, error) {
	ctx := c.Request.Context()
	return nil, a.db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM articles WHERE slug = $2 AND author_id = $1", viewer(c), in.Slug)
		return changed(ctx, tx, res, err, "article", "SELECT author_id FROM articles WHERE slug = $1", in.Slug)
	})
}

// changed returns the answer to a change of a row only its author may
// change, made by res and err: nil when it changed a row, else 404 (no
// such what) when the query who, with args, finds no author, and 403
// when it finds one (someone else's).
func changed(ctx context.Context, tx *sql.Tx, res sql.Result, err error, what, who string, args ...any) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	var author int64
	switch err := tx.QueryRowContext(ctx, who, args...).Scan(&author); {
	case errors.Is(err, sql.ErrNoRows):
		return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such " + what}
	case err != nil:
		return err
	}
	return forbidden
}

// withSlug runs write in a transaction with the slug made of title, and
// again, with a random suffix, while the slug is taken (the unique key on
// articles.slug says so), and returns the slug written. The slug "feed"
// always gets a suffix: GET /api/articles/feed is the feed.
func (a *app) withSlug(ctx context.Context, title string, write func(tx *sql.Tx, slug string) error) (string, error) {
	base := slugify(title)
	suffixed := func() string { return base + "-" + strconv.FormatUint(rand.Uint64N(1<<30), 36) }
	slug := base
	if slug == "feed" {
		slug = suffixed()
	}
	for try := 0; ; try++ {
		err := a.db.inTx(ctx, func(tx *sql.Tx) error { return write(tx, slug) })
		if kind, member := violation(err); kind != "unique" || member != "slug" || try == 4 {
			return slug, err
		}
		slug = suffixed()
	}
}

// slugify returns the title's letters and digits, lower case, each run
// of anything else one dash: "How to train your dragon?" is
// "how-to-train-your-dragon".
func slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "article"
	}
	return b.String()
}

// tagSet returns the tags, trimmed, sorted and each once, leaving out
// empty ones; a tag of more than 64 characters is a 422.
func tagSet(tags []string) ([]string, error) {
	set := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if len([]rune(t)) > 64 {
			return nil, unprocessable("article.tagList: a tag has more than 64 characters")
		}
		if t != "" {
			set = append(set, t)
		}
	}
	slices.Sort(set)
	return slices.Compact(set), nil
}

// favorite marks the article favorited by the user who asks, once however
// many ask at the same time: the favorites table's key holds the rule.
func (a *app) favorite(c *waltz.Context, in *SlugIn) (*ArticleOut, error) {
	if _, err := a.db.ExecContext(c.Request.Context(), `INSERT INTO favorites (user_id, article_id)
		SELECT $1, id FROM articles WHERE slug = $2 ON CONFLICT DO NOTHING`, viewer(c), in.Slug); err != nil {
		return nil, err
	}
	return a.read(c, in.Slug)
}

func (a *app) unfavorite(c *waltz.Context, in *SlugIn) (*ArticleOut, error) {
	if _, err := a.db.ExecContext(c.Request.Context(), `DELETE FROM favorites
		WHERE user_id = $1 AND article_id IN (SELECT id FROM articles WHERE slug = $2)`, viewer(c), in.Slug); err != nil {
		return nil, err
	}
	return a.read(c, in.Slug)
}

func (a *app) tags(c *waltz.Context, _ *struct{}) (*TagsOut, error) {
	// Sorted here, by bytes, as each article's tagList: ORDER BY would
	// sort by the database's collation, which differs between engines
	// and between PostgreSQL databases.
	rows, err := a.db.QueryContext(c.Request.Context(), "SELECT DISTINCT tag FROM article_tags")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &TagsOut{}
	out.Body.Tags = []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out.Body.Tags = append(out.Body.Tags, t)
	}
	slices.Sort(out.Body.Tags)
	return out, rows.Err()
}
