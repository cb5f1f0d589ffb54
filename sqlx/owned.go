package sqlx

import (
	"context"
	"errors"
	"fmt"

	"github.com/stampede-bench/stampede/dialect"
)

// ErrNotOwned is returned by ClaimDatabase and DropClaimedDatabase for a
// database that exists but was not made by the claiming command: it is
// the user's, and stampede leaves it alone.
var ErrNotOwned = errors.New("database exists and was not made by stampede")

// ownerComment is the comment that marks a database made by owner.
func ownerComment(owner string) string {
	return "made by " + owner + "; it drops this database when done"
}

// ClaimDatabase makes sure that database name exists and belongs to
// owner (a command, such as "stampede demo"), connecting through db to
// another database of the same server. A missing database is created and
// marked with a comment naming owner (created is true); one that exists
// with owner's mark is reused (an earlier run of owner kept it or was
// killed); one that exists without it is the user's, and ClaimDatabase
// returns an error wrapping ErrNotOwned without touching it.
func ClaimDatabase(ctx context.Context, db *DB, name, owner string) (created bool, err error) {
	d := db.Dialect()
	comment, exists, err := databaseComment(ctx, db, name)
	if err != nil {
		return false, err
	}
	if exists {
		if comment != ownerComment(owner) {
			return false, fmt.Errorf("%w: database %q already exists on %s and %s did not create it", ErrNotOwned, name, db.Endpoints()[0], owner)
		}
		return false, nil
	}
	if _, err := db.Exec(ctx, d.CreateDatabase(name)); err != nil {
		return false, fmt.Errorf("creating database %q: %w", name, err)
	}
	if _, err := db.Exec(ctx, dialect.CommentOnDatabase(d, name, ownerComment(owner))); err != nil {
		// Unmarked, the database would look like the user's from now on.
		_, _ = db.Exec(context.WithoutCancel(ctx), d.DropDatabase(name))
		return false, fmt.Errorf("marking database %q as made by %s: %w", name, owner, err)
	}
	return true, nil
}

// DropClaimedDatabase drops database name if it carries owner's mark (see
// ClaimDatabase). A missing database is no error; one without the mark
// gives an error wrapping ErrNotOwned and is left as it is.
func DropClaimedDatabase(ctx context.Context, db *DB, name, owner string) error {
	comment, exists, err := databaseComment(ctx, db, name)
	if err != nil || !exists {
		return err
	}
	if comment != ownerComment(owner) {
		return fmt.Errorf("%w: database %q on %s has lost %s's mark; left in place", ErrNotOwned, name, db.Endpoints()[0], owner)
	}
	if _, err := db.Exec(ctx, db.Dialect().DropDatabase(name)); err != nil {
		return fmt.Errorf("dropping database %q: %w", name, err)
	}
	return nil
}

// databaseComment returns database name's comment ("" without one) and
// whether the database exists.
func databaseComment(ctx context.Context, db *DB, name string) (comment string, exists bool, err error) {
	var c *string
	err = db.QueryRow(ctx, dialect.DatabaseCommentQuery(db.Dialect()), name).Scan(&c)
	if errors.Is(err, ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("looking up database %q: %w", name, err)
	}
	if c != nil {
		comment = *c
	}
	return comment, true, nil
}
