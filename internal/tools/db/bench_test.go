package db

import (
	"fmt"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// BenchmarkPgQuery10kRows: a 10,000-row result (an int, a text of 20
// bytes, a timestamp) read into its JSON form in the Igor; -benchmem's
// B/op is the memory the result costs.
func BenchmarkPgQuery10kRows(b *testing.B) {
	s := tooltest.NewSession(b, Tools())
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q}`, pg.URL))
	q := `{"query":"SELECT g AS id, repeat('x', 20) AS name, now() AS at FROM generate_series(1, 10000) g","maxRows":10000}`
	for b.Loop() {
		s.MustRun("db_pg_query", q)
	}
}
