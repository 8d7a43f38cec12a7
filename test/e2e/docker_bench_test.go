package e2e

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkDocker: docker_ps and a run-to-exit of a busybox container
// (docker_run, attached, rm) through BarrHawk's front and an Igor, beside
// the same through the docker CLI (`docker ps`, `docker run --rm`), one of
// each in turn against the same daemon, so that both meet the same
// machine. Reports the medians and their ratio (BarrHawk / CLI). Figures
// and commands: docs/PERFORMANCE.md.
func BenchmarkDocker(b *testing.B) {
	testbin.DockerLock(b, false)
	host := testbin.DockerHost(b)
	testbin.BusyboxImage(b, host, dockerImage)
	s := startConfigured(b, "", "DOCKER_HOST="+host)
	ctx := context.Background()
	through := func(name string, args map[string]any) time.Duration {
		t0 := time.Now()
		res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		d := time.Since(t0)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, text(res))
		}
		return d
	}
	cli := func(args ...string) time.Duration {
		t0 := time.Now()
		if out, err := exec.Command("docker", append([]string{"-H", host}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("docker %v: %v %s", args, err, out)
		}
		return time.Since(t0)
	}
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
		cli  []string
	}{
		{"ps", "docker_ps", map[string]any{"all": true}, []string{"ps", "-a"}},
		{"run-to-exit", "docker_run", map[string]any{"image": dockerImage, "command": []string{"true"}, "rm": true}, []string{"run", "--rm", dockerImage, "true"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range 3 { // warm both (and start the Igor)
				through(c.tool, c.args)
				cli(c.cli...)
			}
			var ours, theirs []time.Duration
			for b.Loop() {
				ours = append(ours, through(c.tool, c.args))
				theirs = append(theirs, cli(c.cli...))
			}
			slices.Sort(ours)
			slices.Sort(theirs)
			mo, mt := ours[len(ours)/2], theirs[len(theirs)/2]
			b.ReportMetric(float64(mo.Microseconds()), "barrhawk-median-µs")
			b.ReportMetric(float64(mt.Microseconds()), "cli-median-µs")
			b.ReportMetric(float64(mo)/float64(mt), "ratio")
		})
	}
}
