package db

import (
	"fmt"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// Values of PostgreSQL's common types come back as readable JSON, not as
// Go structs or byte arrays.
func TestPostgresTypesAsJSON(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q}`, pg.URL))
	got := tooltest.Marshal(s.MustRun("db_pg_query", `{"query":"SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, 12.50::numeric AS n, '\\x00ff'::bytea AS b, 'hi'::bytea AS t, ARRAY[1,2] AS a, '10.0.0.1/8'::inet AS ip, '{\"k\":1}'::json AS j, '1 day 2 hours'::interval AS i, 9007199254740993::int8 AS big, NULL::text AS nothing, true AS yes, '2024-01-02 03:04:05+00'::timestamptz AS ts"}`))
	for _, want := range []string{`"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`, `"n":12.5`, `"b":"AP8="`, `"t":"hi"`, `"a":[1,2]`, `"ip":"10.0.0.1/8"`, `"j":{"k":1}`, `"big":"9007199254740993"`, `"nothing":null`, `"yes":true`, `"ts":"2024-01-02T03:04:05Z"`, `"i":"1 day 02:00:00`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %s: %s", want, got)
		}
	}
}

// Ranges come back as PostgreSQL writes them, not as pgx's struct.
func TestPostgresRangesAsText(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q}`, pg.URL))
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"query":"SELECT int4range(1, 5) AS r, int8range(NULL, 10, '(]') AS hi, numrange(1.5, 2.25, '[]') AS n, 'empty'::int4range AS e, daterange('2024-01-01', '2024-02-01') AS d, NULL::int4range AS nothing, int4multirange(int4range(1, 3), int4range(5, 7)) AS m"}`))
	tooltest.WantJSON(t, "ranges", got["rows"], `[{"r":"[1,5)","hi":"(,11)","n":"[1.5,2.25]","e":"empty","d":"[2024-01-01T00:00:00Z,2024-02-01T00:00:00Z)","nothing":null,"m":"{[1,3),[5,7)}"}]`)
}

// Types pgx does not know by name (an enum, void) are named by the server.
func TestPostgresTypeNamesOfUnknownTypes(t *testing.T) {
	t.Parallel()
	s := pgSession(t, "t_types")
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TYPE mood AS ENUM ('sad', 'happy')"}`)
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT 'happy'::mood AS m, pg_sleep(0) AS v"}`))
	tooltest.WantJSON(t, "columns", got["columns"], `[{"name":"m","type":"mood"},{"name":"v","type":"void"}]`)
	tooltest.WantJSON(t, "rows", got["rows"], `[{"m":"happy","v":""}]`)
	// An array of such a type is an array, as arrays of known types are
	// (it was the text {sad,happy}).
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT ARRAY['sad','happy']::mood[] AS ms, ARRAY[ARRAY['sad'::mood, NULL], ARRAY['happy'::mood, 'sad'::mood]] AS grid, '{}'::mood[] AS none, NULL::mood[] AS nothing, ARRAY[1] AS n, ARRAY['happy'::mood] AS m, ARRAY['happy'::mood] AS m"}`))
	tooltest.WantJSON(t, "columns", got["columns"], `[{"name":"ms","type":"mood[]"},{"name":"grid","type":"mood[]"},{"name":"none","type":"mood[]"},{"name":"nothing","type":"mood[]"},{"name":"n","type":"int4[]"},{"name":"m","type":"mood[]"},{"name":"m","type":"mood[]"}]`)
	tooltest.WantJSON(t, "rows", got["rows"], `[{"ms":["sad","happy"],"grid":[["sad",null],["happy","sad"]],"none":[],"nothing":null,"n":[1],"m":["happy"],"m_2":["happy"]}]`)
}

func TestParseArrayText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{a,b}`:                `["a","b"]`,
		`{"a b","c,d","e\"f"}`: `["a b","c,d","e\"f"]`,
		`{NULL,"NULL",x}`:      `[null,"NULL","x"]`,
		`{{1,2},{3,4}}`:        `[["1","2"],["3","4"]]`,
		`[0:1]={a,b}`:          `["a","b"]`,
		`{}`:                   `[]`,
	} {
		v, err := parseArray(in)
		if got := tooltest.Marshal(v); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`{a`, `a}`, `{"a}`, `{a}b`} {
		if _, err := parseArray(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
