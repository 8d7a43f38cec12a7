package db

import (
	"fmt"
	"runtime"
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

// BenchmarkPgConnectionMemory: what one open alias (a pool holding one
// connection) costs the Igor, as Go heap in use per connection
// (B/conn), over 20 aliases opened at once.
func BenchmarkPgConnectionMemory(b *testing.B) {
	const n = 20
	for b.Loop() {
		s := tooltest.NewSession(b, Tools())
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q,"alias":"a%d"}`, pg.URL, i))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/n, "B/conn")
		if _, err := s.Res.CloseAll(); err != nil {
			b.Fatal(err)
		}
	}
}
