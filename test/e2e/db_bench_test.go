package e2e

import (
	"context"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsrv"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkPgQuery: `SELECT 1` through the MCP front and an Igor
// (db_pg_query), and the same straight through pgx, one at a time, in one
// run: the difference is what BarrHawk adds to the database's own time.
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
		for b.Loop() {
			res, err := s.session.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
		}
	})
	b.Run("pgx", func(b *testing.B) {
		pool, err := pgxpool.New(ctx, pg.URL)
		if err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
		for b.Loop() {
			var one int
			if err := pool.QueryRow(ctx, "SELECT 1 AS one").Scan(&one); err != nil {
				b.Fatal(err)
			}
		}
	})
}
