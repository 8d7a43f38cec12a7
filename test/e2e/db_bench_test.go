package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkPgQuery: `SELECT 1` through the MCP front and an Igor
// (db_pg_query), the same straight through pgx, and a tool that touches no
// database (hash_text) through the same front, one at a time, in one run:
// front minus pgx is what BarrHawk adds to the database's own time, and
// front minus hash_text what the database path adds to any call's.
func BenchmarkPgQuery(b *testing.B) {
	pg, err := testsrv.StartPostgres()
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	ctx := context.Background()
	b.Run("front", func(b *testing.B) {
		s := start(b)
		if _, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "db_pg_connect", Arguments: map[string]any{"connectionString": pg.URL}}); err != nil {
			b.Fatal(err)
		}
		params := &mcp.CallToolParams{Name: "db_pg_query", Arguments: map[string]any{"query": "SELECT 1 AS one"}}
		var lat []time.Duration
		for b.Loop() {
			t0 := time.Now()
			res, err := s.session.CallTool(ctx, params)
			lat = append(lat, time.Since(t0))
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
		}
		reportLatencies(b, lat)
	})
	b.Run("pgx", func(b *testing.B) {
		pool, err := pgxpool.New(ctx, pg.URL)
		if err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
		var lat []time.Duration
		for b.Loop() {
			t0 := time.Now()
			var one int
			if err := pool.QueryRow(ctx, "SELECT 1 AS one").Scan(&one); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatencies(b, lat)
	})
	b.Run("hash_text", func(b *testing.B) {
		s := start(b)
		params := &mcp.CallToolParams{Name: "hash_text", Arguments: map[string]any{"text": "hello"}}
		if _, err := s.session.CallTool(ctx, params); err != nil { // spawn the Igor
			b.Fatal(err)
		}
		var lat []time.Duration
		for b.Loop() {
			t0 := time.Now()
			res, err := s.session.CallTool(ctx, params)
			lat = append(lat, time.Since(t0))
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
		}
		reportLatencies(b, lat)
	})
}
