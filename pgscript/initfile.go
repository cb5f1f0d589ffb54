package pgscript

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/sqlx"
)

// InitStep is one statement of an init file: SQL, or a COPY ... FROM
// STDIN with the data that follows it up to a line `\.` (as pg_dump
// writes them and psql reads them).
type InitStep struct {
	Line int
	// Name is the `-- name:` comment above the statement, if any.
	Name string
	SQL  string
	// Copy says that Data is the statement's input, which starts on
	// line DataLine.
	Copy     bool
	Data     string
	DataLine int
}

// copyFromStdin matches a COPY whose data follows in the file.
var copyFromStdin = lazyre.New(`(?is)^\s*copy\b.*\bfrom\s+stdin\b`)

// ParseInit reads an init file: SQL statements ended by semicolons, and
// COPY ... FROM STDIN followed by its rows and a line `\.`. Meta-commands
// belong to the scripts a run runs, not here, and are refused.
func ParseInit(name, src string) ([]InitStep, error) {
	return parseSQLFile(name, src, "an init file holds SQL statements and COPY data only")
}

// ParseCheck reads a check file as ParseInit reads an init file; its
// refusal of a meta-command says it is a check file.
func ParseCheck(name, src string) ([]InitStep, error) {
	return parseSQLFile(name, src, "a check file holds queries that return booleans only")
}

// ParseCleanup reads a cleanup file (SQL statements that undo what a
// user's init file did, as pgbench users keep a drop.sql) as ParseInit
// reads an init file.
func ParseCleanup(name, src string) ([]InitStep, error) {
	return parseSQLFile(name, src, "a cleanup file holds SQL statements only")
}

// parseSQLFile is ParseInit, ParseCheck and ParseCleanup; holds says what the file
// holds, in the refusal of a meta-command.
func parseSQLFile(name, src, holds string) ([]InitStep, error) {
	p := &parser{file: name, src: src, line: 1}
	var steps []InitStep
	for p.pos < len(p.src) {
		cmd, meta, err := p.next()
		if err != nil {
			return nil, err
		}
		if meta != nil {
			return nil, p.errorf(meta.Line, `%s: %s (meta-commands go in the scripts given with -f)`, strings.Fields(meta.Text)[0], holds)
		}
		if cmd == nil {
			continue
		}
		step := InitStep{Line: cmd.Line, Name: cmd.Name, SQL: cmd.Text}
		if copyFromStdin().MatchString(cmd.Text) {
			// The data starts on the line after the statement's semicolon.
			if nl := strings.IndexByte(p.src[p.pos:], '\n'); nl >= 0 {
				rest := strings.TrimSpace(p.src[p.pos : p.pos+nl])
				if rest != "" {
					return nil, p.errorf(p.line, "COPY ... FROM STDIN: its data starts on the next line, and %q follows the statement", rest)
				}
				p.pos += nl + 1
				p.line++
			} else {
				p.pos = len(p.src)
			}
			start := p.line
			var b strings.Builder
			for {
				if p.pos >= len(p.src) {
					return nil, p.errorf(start, `COPY ... FROM STDIN: its data has no end: add a line \. after the last row`)
				}
				end := strings.IndexByte(p.src[p.pos:], '\n')
				if end < 0 {
					end = len(p.src) - p.pos
				}
				l := p.src[p.pos : p.pos+end]
				p.pos = min(len(p.src), p.pos+end+1)
				p.line++
				if strings.TrimRight(l, "\r") == `\.` {
					break
				}
				b.WriteString(l)
				b.WriteByte('\n')
			}
			step.Copy, step.Data, step.DataLine = true, b.String(), start
		}
		steps = append(steps, step)
	}
	if len(steps) == 0 {
		return nil, p.errorf(1, "holds no statement")
	}
	if line := openTransaction(steps); line > 0 {
		return nil, p.errorf(line, "the file ends inside the transaction this BEGIN opens, which would be rolled back: add COMMIT; at its end (or remove the BEGIN)")
	}
	return steps, nil
}

// openTransaction returns the line of the BEGIN (or START TRANSACTION)
// whose transaction the steps leave open, or 0.
func openTransaction(steps []InitStep) int {
	open := 0
	for _, s := range steps {
		for _, part := range strings.Split(s.SQL, ";") {
			switch txEffect(part) {
			case 1:
				if open == 0 {
					open = s.Line
				}
			case -1:
				open = 0
			}
		}
	}
	return open
}

// InitError is a statement of an init file that failed on the server.
type InitError struct {
	// File and Line name the statement (for COPY data, the row's line).
	File string
	Line int
	Err  error
}

func (e *InitError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *InitError) Unwrap() error { return e.Err }

// copyLine reads the row a COPY error names ("COPY t, line 3, ...").
var copyLine = lazyre.New(`\bline (\d+)\b`)

// RunInit runs an init file's steps on conn over the simple protocol,
// so that any statement may be there; it returns the rows COPY and
// INSERT statements wrote.
func RunInit(ctx context.Context, conn sqlx.ScriptQuerier, name string, steps []InitStep) (int64, error) {
	var rows int64
	for _, s := range steps {
		if s.Copy {
			n, err := conn.CopyIn(ctx, s.SQL, strings.NewReader(s.Data))
			if err != nil {
				line := s.Line
				var pe *pgconn.PgError
				if errors.As(err, &pe) {
					if m := copyLine().FindStringSubmatch(pe.Where); m != nil {
						if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
							line = s.DataLine + n - 1
						}
					}
				}
				return rows, &InitError{File: name, Line: line, Err: err}
			}
			rows += n
			continue
		}
		n, err := conn.QueryScript(ctx, sqlx.Simple, s.SQL, nil, nil)
		if err != nil {
			st := step{Command: &Command{Line: s.Line, Text: s.SQL}}
			return rows, &InitError{File: name, Line: st.lineOf(err), Err: err}
		}
		if f := strings.Fields(s.SQL); len(f) > 0 && strings.EqualFold(f[0], "INSERT") {
			rows += n
		}
	}
	return rows, nil
}
