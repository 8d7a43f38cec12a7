package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

const sqliteGroup = "SQLite"

type sqliteConn = conn[*sql.DB]

func sqliteTools() []tool.Tool {
	return []tool.Tool{sqliteOpen(), sqliteQuery(), sqliteSchema(), sqliteClose()}
}

func sqliteLookup(call *tool.Call, alias string) (*sqliteConn, error) {
	return lookup[*sql.DB](call, tool.KindSQLite, alias, "db_sqlite_open")
}

func sqliteOpen() tool.Tool {
	type args struct {
		Path     string `json:"path"`
		Readonly bool   `json:"readonly"`
		Alias    string `json:"alias"`
	}
	open := tool.Tool{
		Def: def("db_sqlite_open", sqliteGroup, "Open an SQLite database file (created if missing, unless readonly) or \":memory:\", under an alias. "+
			"Returns {alias, path, readonly, tables}.", false,
			schema.Object(
				schema.String("path", "Database file inside the allowed roots (relative to the server's working directory), or :memory:").Required().Min(1),
				schema.Boolean("readonly", "Open read-only: the file must exist and writes fail").Default(false),
				aliasArg("SQLite"),
			)).
			WithPhrases("open sqlite file", "sqlite3 db", "in-memory database", ".db file", "local database file", "create sqlite database", "open database read-only", "open without modifying it"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("database tools"); err != nil {
				return nil, err
			}
			alias := aliasOf(in.Alias)
			path, real := in.Path, in.Path
			if path != ":memory:" {
				var err error
				if path, real, err = sqlitePath(ctx, in.Path); err != nil {
					return nil, err
				}
				fi, err := os.Stat(real)
				switch {
				case err == nil && fi.IsDir():
					return nil, tool.Errorf(tool.CodeInvalidArgs, "db_sqlite_open %s: is a directory; give a database file", path)
				case errors.Is(err, os.ErrNotExist) && in.Readonly:
					return nil, tool.Errorf(tool.CodeNotFound, "db_sqlite_open %s: no such file (readonly opens only an existing database)", path)
				case errors.Is(err, os.ErrNotExist):
					if _, err := os.Stat(filepath.Dir(real)); err != nil {
						return nil, tool.Errorf(tool.CodeNotFound, "db_sqlite_open %s: the directory %s does not exist", path, filepath.Dir(path))
					}
				}
			}
			q := url.Values{}
			q.Add("_pragma", "busy_timeout(5000)")
			q.Add("_pragma", "foreign_keys(1)")
			if in.Readonly {
				q.Set("mode", "ro")
			}
			dsn := "file:" + (&url.URL{Path: real}).EscapedPath() + "?" + q.Encode()
			if path == ":memory:" {
				dsn = "file::memory:?" + q.Encode()
			}
			db, err := sql.Open("sqlite", dsn)
			if err != nil {
				return nil, tool.Errorf(tool.CodeToolError, "db_sqlite_open %s: %v", path, err)
			}
			// One connection: ":memory:" is one database per connection, and
			// SQLite writes one at a time anyway.
			db.SetMaxOpenConns(1)
			var tables int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables); err != nil {
				db.Close()
				return nil, tool.Errorf(tool.CodeToolError, "db_sqlite_open %s: not a usable SQLite database: %v", path, err)
			}
			_, replaced := call.Resources.Get(tool.KindSQLite, alias)
			call.Resources.Put(tool.KindSQLite, alias, &sqliteConn{c: db, label: "SQLite " + path}, db.Close)
			out := map[string]any{"alias": alias, "path": path, "readonly": in.Readonly, "tables": tables}
			if replaced {
				out["replaced"] = true // the alias's earlier connection was closed
			}
			return out, nil
		}),
	}
	open.UsesRoots = true // a database file is a file
	return open
}

// sqlitePath places a database file inside the allowed roots, as the
// filesystem tools do: a relative path starts in the first root (the
// server's working directory), and the file, its symbolic links resolved,
// must lie inside a root; else FORBIDDEN naming the roots. It returns the
// path as given made absolute, and the real path to open.
func sqlitePath(ctx context.Context, p string) (abs, real string, err error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", tool.Errorf(tool.CodeInvalidArgs, "argument \"path\": the path contains a NUL byte")
	}
	roots := tool.RootsFrom(ctx)
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", tool.Errorf(tool.CodeInternal, "no allowed roots: the working directory is unknown: %v", err)
		}
		if r, err := filepath.EvalSymlinks(wd); err == nil {
			wd = r
		}
		roots = []string{wd}
	}
	abs = p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(roots[0], abs)
	}
	abs = filepath.Clean(abs)
	real = abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		real = filepath.Join(dir, filepath.Base(abs))
	}
	if fspath.WithinAny(real, roots) {
		return abs, real, nil
	}
	how := ""
	if real != abs {
		how = ", through a symbolic link to " + real
	}
	return "", "", tool.Errorf(tool.CodeForbidden, "argument \"path\": path %q (%s%s) is outside the allowed roots (%s); give a path inside one of them, or allow its directory with tools.roots in barrhawk.yaml or as a root of your MCP client",
		p, abs, how, strings.Join(roots, ", "))
}

// sqliteErr explains an SQLite error.
func sqliteErr(c *sqliteConn, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	msg := err.Error()
	if strings.Contains(msg, "readonly database") || strings.Contains(msg, "SQLITE_READONLY") {
		msg += " (the database was opened with readonly: true; open it again without readonly to write)"
	}
	if strings.Contains(msg, "missing named argument") {
		msg += " (params is a list, which gives values by position: write ? or ?1, ?2 ... instead of :name)"
	}
	return tool.Errorf(tool.CodeQueryError, "%s: %s", c.label, msg)
}

// sqliteQueryErr is sqliteErr for an error of query, with where it is when
// SQLite's message lets it be found (SQLite reports no position, only the
// token: near "X", no such column: X): the line and column with a caret,
// when that token occurs once in the query; for incomplete input, its end.
func sqliteQueryErr(c *sqliteConn, query string, err error) error {
	e := sqliteErr(c, err)
	te, ok := e.(*tool.Error)
	if !ok {
		return e
	}
	msg := err.Error()
	token := ""
	for _, prefix := range []string{"near \"", "no such column: ", "no such table: ", "no such function: "} {
		if _, rest, found := strings.Cut(msg, prefix); found {
			if prefix == "near \"" {
				token, _, _ = strings.Cut(rest, "\": ")
			} else {
				token, _, _ = strings.Cut(rest, " (")
			}
			break
		}
	}
	at := -1
	switch {
	case token != "" && strings.Count(query, token) == 1:
		at = strings.Index(query, token)
	case token == "" && strings.Contains(msg, "incomplete input"):
		at = len(strings.TrimRightFunc(query, unicode.IsSpace))
	}
	if at >= 0 {
		te.Message += "\n" + caret(query, utf8.RuneCountInString(query[:at])+1)
	}
	return te
}

// sqliteParamsErr is INVALID_ARGS for a statement with more parameters
// than params gives values (the driver says "missing argument with index
// N" for ?, "missing named argument "N"" for ?N), or nil for another error.
func sqliteParamsErr(err error, given int) error {
	msg := err.Error()
	num := ""
	if _, rest, ok := strings.Cut(msg, "missing argument with index "); ok {
		num = rest
	} else if _, rest, ok := strings.Cut(msg, "missing named argument \""); ok {
		num, _, _ = strings.Cut(rest, "\"")
	}
	n, perr := strconv.Atoi(num)
	if perr != nil || n < 1 {
		return nil // a named parameter (:name), or another error
	}
	return tool.Errorf(tool.CodeInvalidArgs, "argument \"params\": the statement uses parameter %d (the %s ?, or ?%d) and params gives %d value(s); give one value per parameter", n, ordinal(n), n, given)
}

// ordinal writes 1 as 1st, 2 as 2nd, 11 as 11th.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// storageClass names the SQLite storage class of a value read: integer,
// real, text or blob; "" for NULL, which says nothing of the column.
func storageClass(v any) string {
	switch v.(type) {
	case int64, int, int32, bool:
		return "integer"
	case float64, float32:
		return "real"
	case string, time.Time:
		return "text"
	case []byte:
		return "blob"
	}
	return ""
}

// sqliteRows reads rows into the shared result form.
func sqliteRows(rows *sql.Rows, maxRows int) (map[string]any, error) {
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cts))
	cols := make([]map[string]any, len(cts))
	for i, ct := range cts {
		names[i] = ct.Name()
		cols[i] = map[string]any{"name": ct.Name(), "type": strings.ToLower(ct.DatabaseTypeName())}
	}
	names = columnNames(names)
	out := []map[string]any{}
	truncated, note, size := false, "", 0
	vals := make([]any, len(cts))
	ptrs := make([]any, len(cts))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if len(out) == maxRows {
			truncated, note = true, cutNote(maxRows)
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make(map[string]any, len(vals))
		for i, v := range vals {
			row[names[i]] = jsonValue(v)
			if cols[i]["type"] == "" {
				// An expression has no declared type: the first value's
				// storage class stands for it.
				cols[i]["type"] = storageClass(v)
			}
		}
		if size += rowSize(row); size > maxResultBytes {
			truncated, note = true, cutBytesNote(len(out))
			break
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res := map[string]any{"columns": cols, "rows": out, "rowCount": len(out)}
	if truncated {
		res["truncated"], res["note"] = true, note
	}
	return res, nil
}

func sqliteQuery() tool.Tool {
	type args struct {
		Query   string `json:"query"`
		Params  []any  `json:"params"`
		MaxRows int    `json:"maxRows"`
		Alias   string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_sqlite_query", sqliteGroup, "Run one SQL statement with ? (or ?1, ?2) parameters. A statement that returns rows (SELECT, WITH, PRAGMA, ... RETURNING) "+
			"gives {columns, rows, rowCount}; any other gives {rowsAffected, lastInsertId}.", true,
			schema.Object(
				schema.String("query", "The SQL statement").Required().Min(1),
				schema.Array("params", "Values for the parameters, in order", nil),
				schema.Integer("maxRows", "Most rows returned").Default(defaultMaxRows).Min(1).Max(maxMaxRows),
				aliasArg("SQLite"),
			)).
			WithPhrases("sqlite3 query", "select from sqlite", "sql on .db file", "sqlite insert", "sqlite pragma", "last insert id", "count rows in sqlite table", "run sql on sqlite"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := sqliteExtraParams(in.Query, len(in.Params)); err != nil {
				return nil, err
			}
			c, err := sqliteLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			// One connection for the statement and what follows it, so that
			// changes() and last_insert_rowid() are the statement's own.
			sc, err := c.c.Conn(ctx)
			if err != nil {
				return nil, sqliteErr(c, err)
			}
			defer sc.Close()
			rows, err := sc.QueryContext(ctx, in.Query, jsonParams(in.Params)...)
			if err != nil {
				if perr := sqliteParamsErr(err, len(in.Params)); perr != nil {
					return nil, perr
				}
				return nil, sqliteQueryErr(c, in.Query, err)
			}
			cols, err := rows.Columns()
			if err != nil {
				rows.Close()
				return nil, sqliteQueryErr(c, in.Query, err)
			}
			if len(cols) > 0 {
				res, err := sqliteRows(rows, maxRowsOf(in.MaxRows))
				if err != nil {
					return nil, sqliteQueryErr(c, in.Query, err)
				}
				return res, nil
			}
			for rows.Next() { // a statement without columns: run it to the end
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, sqliteQueryErr(c, in.Query, err)
			}
			var affected, lastID int64
			if err := sc.QueryRowContext(ctx, "SELECT changes(), last_insert_rowid()").Scan(&affected, &lastID); err != nil {
				return nil, sqliteErr(c, err)
			}
			return map[string]any{"rowsAffected": affected, "lastInsertId": lastID}, nil
		}),
	}
}

func sqliteSchema() tool.Tool {
	type args struct {
		Table string `json:"table"`
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_sqlite_schema", sqliteGroup, "Describe the database: without table, its tables, views and indexes {type, name, sql}; with table, "+
			"its columns {name, type, notnull, default, pk}, indexes and foreign keys.", false,
			schema.Object(
				schema.String("table", "A table to describe (default: list everything)"),
				aliasArg("SQLite"),
			)).
			WithPhrases("sqlite tables", "sqlite_master", ".schema", "sqlite table columns", "sqlite indexes", "describe sqlite table", "create table statements", "sqlite primary key", "table definitions"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := sqliteLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			query := func(q string, args ...any) ([]map[string]any, error) {
				rows, err := c.c.QueryContext(ctx, q, args...)
				if err != nil {
					return nil, sqliteErr(c, err)
				}
				res, err := sqliteRows(rows, maxMaxRows)
				if err != nil {
					return nil, sqliteErr(c, err)
				}
				return res["rows"].([]map[string]any), nil
			}
			if in.Table == "" {
				objs, err := query("SELECT type, name, tbl_name AS \"table\", sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type DESC, name")
				if err != nil {
					return nil, err
				}
				return map[string]any{"objects": objs, "count": len(objs)}, nil
			}
			var n int
			if err := c.c.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?", in.Table).Scan(&n); err != nil {
				return nil, sqliteErr(c, err)
			}
			if n == 0 {
				tables, _ := query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
				names := make([]string, len(tables))
				for i, t := range tables {
					names[i] = fmt.Sprint(t["name"])
				}
				return nil, tool.Errorf(tool.CodeNotFound, "no table %q; tables: %s", in.Table, listOrNone(names))
			}
			// The table-valued pragma functions take the name as a value.
			cols, err := query("SELECT name, type, \"notnull\", dflt_value AS \"default\", pk FROM pragma_table_info(?)", in.Table)
			if err != nil {
				return nil, err
			}
			idx, err := query("SELECT name, \"unique\", origin FROM pragma_index_list(?)", in.Table)
			if err != nil {
				return nil, err
			}
			fks, err := query("SELECT \"from\", \"table\", \"to\", on_delete FROM pragma_foreign_key_list(?)", in.Table)
			if err != nil {
				return nil, err
			}
			return map[string]any{"table": in.Table, "columns": cols, "indexes": idx, "foreignKeys": fks}, nil
		}),
	}
}

func sqliteClose() tool.Tool {
	type args struct {
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_sqlite_close", sqliteGroup, "Close an SQLite database. Returns {alias, closed}.", false,
			schema.Object(aliasArg("SQLite"))).
			WithPhrases("close sqlite file", "release sqlite database", "close .db file", "sqlite3 close", "done with sqlite"),
		Run: tool.Typed(func(_ context.Context, in args, call *tool.Call) (any, error) {
			return disconnect(call, tool.KindSQLite, in.Alias, "db_sqlite_open")
		}),
	}
}
