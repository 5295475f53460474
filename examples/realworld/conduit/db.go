package conduit

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// migrations are the schema's steps, one directory per engine, applied
// in the order of their names.
//
//go:embed migrations
var migrations embed.FS

// DB is the store: a connection pool on SQLite or PostgreSQL. The queries
// are the same on both: parameters are written $1, $2, ..., which both
// drivers bind by number.
type DB struct {
	*sql.DB
	engine string // "sqlite" or "postgres", the directory of its migrations
}

// Open opens the database and brings its schema up to date. A dsn that
// starts with postgres:// or postgresql:// is a PostgreSQL database,
// reached through pgx; any other is a SQLite file (created when absent),
// and "" is a SQLite database in memory, gone when the process ends.
func Open(ctx context.Context, dsn string) (*DB, error) {
	db := &DB{engine: "sqlite"}
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		db.engine = "postgres"
		db.DB, err = sql.Open("pgx", dsn)
	case dsn == "":
		db.DB, err = sql.Open("sqlite", "file::memory:?"+sqliteOptions)
	default:
		db.DB, err = sql.Open("sqlite", "file:"+url.PathEscape(dsn)+"?"+sqliteOptions+"&_pragma=journal_mode(WAL)")
	}
	if err != nil {
		return nil, err
	}
	n := 4 * runtime.GOMAXPROCS(0)
	if dsn == "" {
		n = 1 // every connection to :memory: is a database of its own
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("conduit: migrating the %s database: %w", db.engine, err)
	}
	return db, nil
}

// sqliteOptions turn foreign keys on (SQLite leaves them off), wait for a
// lock rather than fail at once, and begin each transaction as a writer,
// so that two never deadlock upgrading from a read.
const sqliteOptions = "_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"

// migrate applies the migrations the database has not had, each in a
// transaction with its record in schema_migrations. On PostgreSQL an
// advisory lock makes processes that start together take turns.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if db.engine == "postgres" {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(20260535)"); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(20260535)")
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY)"); err != nil {
		return err
	}
	files, err := fs.Glob(migrations, "migrations/"+db.engine+"/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(files)
	for _, name := range files {
		if err := apply(ctx, conn, name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// apply runs the migration file name unless it has run before.
func apply(ctx context.Context, conn *sql.Conn, name string) error {
	script, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var done bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", name).Scan(&done); err != nil || done {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(script)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", name); err != nil {
		return err
	}
	return tx.Commit()
}

// inTx runs fn in a transaction, committed if fn returns nil.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// violation returns the kind of rule of the schema err broke, "unique",
// "foreign key" or "text" (a value PostgreSQL cannot store as text), and
// the member it names ("username", "email", "slug", or "" for another),
// or "" when err is no such error.
func violation(err error) (kind, member string) {
	var detail string
	var se *sqlite.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY):
		kind, detail = "unique", se.Error()
	case errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		kind = "foreign key"
	case errors.As(err, &pe) && pe.Code == "23505":
		kind, detail = "unique", pe.ConstraintName
	case errors.As(err, &pe) && pe.Code == "23503":
		kind = "foreign key"
	case errors.As(err, &pe) && (pe.Code == "22021" || pe.Code == "22P05"):
		kind = "text"
	}
	for _, m := range []string{"username", "email", "slug"} {
		if strings.Contains(detail, m) {
			return kind, m
		}
	}
	return kind, ""
}
