-- The Conduit schema on PostgreSQL. Times are microseconds since 1970 UTC;
-- tag_list is the article's tags as a sorted JSON array, written with
-- article_tags in one transaction (article_tags answers the filters and
-- GET /api/tags, tag_list the reads).
CREATE TABLE users (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	username TEXT NOT NULL CONSTRAINT users_username_key UNIQUE,
	email TEXT NOT NULL CONSTRAINT users_email_key UNIQUE,
	password TEXT NOT NULL,
	bio TEXT NOT NULL DEFAULT '',
	image TEXT NOT NULL DEFAULT ''
);
CREATE TABLE follows (
	follower_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	followee_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	PRIMARY KEY (follower_id, followee_id)
);
CREATE INDEX follows_followee ON follows (followee_id);
CREATE TABLE articles (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	slug TEXT NOT NULL CONSTRAINT articles_slug_key UNIQUE,
	author_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	title TEXT NOT NULL,
	description TEXT NOT NULL,
	body TEXT NOT NULL,
	tag_list TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
);
CREATE INDEX articles_created ON articles (created_at, id);
CREATE INDEX articles_author ON articles (author_id, created_at);
CREATE TABLE article_tags (
	article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
	tag TEXT NOT NULL,
	PRIMARY KEY (article_id, tag)
);
CREATE INDEX article_tags_tag ON article_tags (tag, article_id);
CREATE TABLE favorites (
	user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
	PRIMARY KEY (user_id, article_id)
);
CREATE INDEX favorites_article ON favorites (article_id);
CREATE TABLE comments (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
	author_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	body TEXT NOT NULL,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
);
CREATE INDEX comments_article ON comments (article_id, id);
