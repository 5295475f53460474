package conduit

import (
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/waltz-go/waltz"
)

// Comment is the spec's Comment.
type Comment struct {
	ID        int64   `json:"id"`
	CreatedAt string  `json:"createdAt" format:"date-time"`
	UpdatedAt string  `json:"updatedAt" format:"date-time"`
	Body      string  `json:"body"`
	Author    Profile `json:"author"`
}

// CommentOut is the answer of POST /api/articles/:slug/comments.
type CommentOut struct {
	Body struct {
		Comment Comment `json:"comment"`
	}
}

// CommentsOut is the answer of GET /api/articles/:slug/comments: the
// article's comments, oldest first.
type CommentsOut struct {
	Body struct {
		Comments []Comment `json:"comments"`
	}
}

// NewComment is the spec's NewComment.
type NewComment struct {
	Body string `json:"body" minLength:"1" maxLength:"65536"`
}

// NewCommentIn is the input of POST /api/articles/:slug/comments.
type NewCommentIn struct {
	SlugIn
	Body struct {
		Comment NewComment `json:"comment"`
	}
}

// CommentIn names a comment of an article by the path.
type CommentIn struct {
	SlugIn
	ID int64 `path:"id" minimum:"1" doc:"the comment's id"`
}

// commentSelect reads the comments of the article $2 as the user $1 sees
// them.
const commentSelect = `SELECT c.id, c.created_at, c.updated_at, c.body, u.username, u.bio, u.image,
	EXISTS (SELECT 1 FROM follows w WHERE w.follower_id = $1 AND w.followee_id = c.author_id)
	FROM comments c JOIN users u ON u.id = c.author_id WHERE c.article_id = $2`

// commentList returns the comments of the article slug that query, a
// commentSelect with args after $2, reads.
func (a *app) commentList(c *waltz.Context, slug, query string, args ...any) ([]Comment, error) {
	ctx := c.Request.Context()
	var article int64
	err := a.db.QueryRowContext(ctx, "SELECT id FROM articles WHERE slug = $1", slug).Scan(&article)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("article", slug)
	} else if err != nil {
		return nil, err
	}
	rows, err := a.db.QueryContext(ctx, query, append([]any{viewer(c), article}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []Comment{}
	for rows.Next() {
		var k Comment
		var created, updated int64
		p := &k.Author
		if err := rows.Scan(&k.ID, &created, &updated, &k.Body, &p.Username, &p.Bio, &p.Image, &p.Following); err != nil {
			return nil, err
		}
		k.CreatedAt, k.UpdatedAt = timestamp(created), timestamp(updated)
		list = append(list, k)
	}
	return list, rows.Err()
}

func (a *app) comments(c *waltz.Context, in *SlugIn) (*CommentsOut, error) {
	list, err := a.commentList(c, in.Slug, commentSelect+" ORDER BY c.id")
	if err != nil {
		return nil, err
	}
	out := &CommentsOut{}
	out.Body.Comments = list
	return out, nil
}

func (a *app) addComment(c *waltz.Context, in *NewCommentIn) (*CommentOut, error) {
	var id int64
	err := a.db.QueryRowContext(c.Request.Context(), `INSERT INTO comments (article_id, author_id, body, created_at, updated_at)
		SELECT id, $1, $3, $4, $4 FROM articles WHERE slug = $2 RETURNING id`,
		viewer(c), in.Slug, in.Body.Comment.Body, time.Now().UnixMicro()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("article", in.Slug)
	} else if err != nil {
		return nil, err
	}
	list, err := a.commentList(c, in.Slug, commentSelect+" AND c.id = $3", id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, notFound("comment", strconv.FormatInt(id, 10)) // deleted since
	}
	out := &CommentOut{}
	out.Body.Comment = list[0]
	return out, nil
}

func (a *app) deleteComment(c *waltz.Context, in *CommentIn) (*struct{}, error) {
	ctx := c.Request.Context()
	return nil, a.db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM comments
			WHERE id = $2 AND author_id = $1 AND article_id IN (SELECT id FROM articles WHERE slug = $3)`, viewer(c), in.ID, in.Slug)
		return changed(ctx, tx, res, err, "comment", `SELECT c.author_id FROM comments c
			JOIN articles a ON a.id = c.article_id WHERE c.id = $1 AND a.slug = $2`, in.ID, in.Slug)
	})
}
