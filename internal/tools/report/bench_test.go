package report

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// writeJUnit writes a JUnit report of n tests in 100 suites: one in ten
// failed (a message and a 5-line stack), one in twenty skipped, each with
// output bytes of system-out. It returns the file's size.
func writeJUnit(tb testing.TB, path string, n, output int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	out := strings.Repeat("log line of a test that prints a lot\n", output/37+1)[:output]
	fmt.Fprintln(w, `<?xml version="1.0" encoding="UTF-8"?>`)
	fmt.Fprintln(w, `<testsuites>`)
	for s := range 100 {
		fmt.Fprintf(w, "  <testsuite name=\"suite%d\" timestamp=\"2026-11-26T10:00:00\">\n", s)
		for i := range n / 100 {
			id := s*(n/100) + i
			fmt.Fprintf(w, "    <testcase classname=\"com.example.Suite%d\" name=\"test number %d\" time=\"0.%03d\">", s, id, id%1000)
			switch {
			case id%10 == 3:
				fmt.Fprintf(w, "<failure message=\"expected %d but was %d\" type=\"AssertionError\">AssertionError: expected %d but was %d\n", id, id+1, id, id+1)
				for k := range 5 {
					fmt.Fprintf(w, "\tat com.example.Suite%d.test%d(Suite%d.java:%d)\n", s, id, s, 10+k)
				}
				fmt.Fprint(w, "</failure>")
			case id%20 == 7:
				fmt.Fprint(w, `<skipped message="not on this platform"/>`)
			}
			if output > 0 {
				fmt.Fprintf(w, "<system-out><![CDATA[%s]]></system-out>", out)
			}
			fmt.Fprintln(w, "</testcase>")
		}
		fmt.Fprintln(w, "  </testsuite>")
	}
	fmt.Fprintln(w, "</testsuites>")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// heapPeak samples the bytes of live heap objects every millisecond until
// stopped, and returns the highest.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	var (
		mu   sync.Mutex
		peak = read()
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return max(peak, read())
	}
}

// BenchmarkReportSummaryJUnit is report_summary reading a JUnit file of
// 10,000 tests, as an agent calls it (arguments validated, the result
// through JSON): the time, the bytes allocated, and the peak of the live
// heap above what it was before the call (peak-heap-MB). The second case
// adds 20 KB of system-out to each test, a 200 MB report: streamed, it
// costs the memory of its results, not of its bytes.
func BenchmarkReportSummaryJUnit(b *testing.B) {
	for _, bc := range []struct {
		name          string
		tests, output int
	}{
		{"tests=10000", 10000, 0},
		{"tests=10000,output=200MB", 10000, 20000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir, err := filepath.EvalSymlinks(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			size := writeJUnit(b, filepath.Join(dir, "junit.xml"), bc.tests, bc.output)
			ctx := tool.WithRoots(context.Background(), []string{dir})
			var peak uint64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				base := func() uint64 {
					s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
					metrics.Read(s)
					return s[0].Value.Uint64()
				}()
				stop := heapPeak()
				b.StartTimer()
				v, terr := tooltest.RunContext(b, ctx, Tools(), "report_summary", `{"source":"junit.xml"}`)
				b.StopTimer()
				if p := stop(); p > base {
					peak = max(peak, p-base)
				}
				if terr != nil {
					b.Fatal(terr)
				}
				if got := tooltest.Object(b, v)["total"]; got != float64(bc.tests) {
					b.Fatalf("total %v, want %d", got, bc.tests)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(size)/(1<<20), "file-MB")
		})
	}
}
