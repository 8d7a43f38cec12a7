package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkGatewayOverhead: server-everything's echo called directly
// (a client on its stdio) and through BarrHawk's gateway (a client on
// BarrHawk's stdio, BarrHawk on server-everything's), one call of each in
// turn, so that both meet the same machine. Reports both medians and what
// the gateway adds (the difference of the medians, and their ratio).
// Figures and commands: docs/PERFORMANCE.md.
func BenchmarkGatewayOverhead(b *testing.B) {
	ever := everythingBin(b)
	home := b.TempDir()
	yaml := "gateway:\n  servers:\n    everything:\n      command: " + ever + "\n      args: [stdio]\n"
	if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	through := connect(b, client, home, "2025-11-25")
	direct, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(ever, "stdio")}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { direct.Close() })
	call := func(s *mcp.ClientSession, name string) time.Duration {
		t0 := time.Now()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"message": "hello"}})
		d := time.Since(t0)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
		return d
	}
	for range 50 { // warm both (and start the upstream behind BarrHawk)
		call(direct, "echo")
		call(through, "everything__echo")
	}
	var d, g []time.Duration
	for b.Loop() {
		d = append(d, call(direct, "echo"))
		g = append(g, call(through, "everything__echo"))
	}
	slices.Sort(d)
	slices.Sort(g)
	md, mg := d[len(d)/2], g[len(g)/2]
	b.ReportMetric(float64(md.Microseconds()), "direct-median-µs")
	b.ReportMetric(float64(mg.Microseconds()), "gateway-median-µs")
	b.ReportMetric(float64((mg - md).Microseconds()), "added-µs")
	b.ReportMetric(float64(mg)/float64(md), "ratio")
}
