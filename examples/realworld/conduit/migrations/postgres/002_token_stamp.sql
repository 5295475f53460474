-- Each user's token stamp: a random value every token of theirs carries
-- and every request checks, made anew when the password changes. A token
-- from a database since reset or restored, or from before a password
-- change, names a stamp no user has: refused. Tokens issued before this
-- step carry none: refused too.
ALTER TABLE users ADD COLUMN stamp TEXT NOT NULL DEFAULT '';
UPDATE users SET stamp = replace(gen_random_uuid()::text, '-', '');
