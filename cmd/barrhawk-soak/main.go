// Command barrhawk-soak runs a real `barrhawk serve --http` under mixed load
// for minutes (package soak), samples what its processes hold, prints a
// table of each figure's first, last and max values and growth per hour,
// and exits 1 when any grows beyond its threshold (2 when the run itself
// failed). scripts/soak builds and runs it; it is a benchmark, not a test.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/soak"
)

func main() {
	defDuration := 10 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("DURATION")); err == nil {
		defDuration = d
	}
	servers := os.Getenv("BARRHAWK_MCP_SERVERS")
	if servers == "" {
		servers = filepath.Join(".cache", "mcp-servers", "node_modules")
	}
	o := soak.Options{}
	flag.StringVar(&o.Bin, "bin", "bin/barrhawk", "the barrhawk binary")
	flag.StringVar(&o.Everything, "everything", filepath.Join(servers, ".bin", "mcp-server-everything"), "mcp-server-everything, the upstream hosted with mcp_register")
	flag.DurationVar(&o.Duration, "duration", defDuration, "how long the load runs (env DURATION)")
	flag.DurationVar(&o.Interval, "interval", 3*time.Second, "time between samples")
	flag.DurationVar(&o.SessionIdle, "session-idle", 10*time.Second, "the server's mcp.sessionIdleTimeout, which ends the abandoned sessions")
	flag.IntVar(&o.RecordCalls, "record-calls", 5000, "the server's dashboard.maxCalls: small, so that the record's bound is reached in the warm-up")
	only := flag.String("only", "", "run only the kinds of load whose names hold one of these comma-separated words (quick, browser, sqlite, upstream, dynamic, sessions)")
	csvPath := flag.String("csv", "", "also write every sample to this CSV file")
	keep := flag.Bool("keep", false, "keep the scratch directory (the server's home, log and working directory)")
	verbose := flag.Bool("v", false, "print each sample and the server's log")
	flag.Parse()
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	grows, err := run(o, *csvPath, *keep, *verbose)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	case grows:
		os.Exit(1)
	}
}

// run soaks and prints the figures; grows says a series grew beyond its
// threshold or a process outlived the server.
func run(o soak.Options, csvPath string, keep, verbose bool) (grows bool, err error) {
	for _, p := range []*string{&o.Bin, &o.Everything} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return false, fmt.Errorf("barrhawk-soak: %w", err)
		}
		if _, err := os.Stat(abs); err != nil {
			return false, fmt.Errorf("barrhawk-soak: %w (scripts/soak builds bin/barrhawk and installs server-everything)", err)
		}
		*p = abs
	}
	dir, err := os.MkdirTemp("", "barrhawk-soak-")
	if err != nil {
		return false, fmt.Errorf("barrhawk-soak: %w", err)
	}
	if keep {
		fmt.Fprintln(os.Stderr, "barrhawk-soak: scratch directory", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	o.Dir = dir
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return false, fmt.Errorf("barrhawk-soak: %w", err)
	}
	defer log.Close()
	o.Log = log
	if verbose {
		o.Log = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(os.Stderr, "barrhawk-soak: %v of mixed load on %s, a sample every %v\n", o.Duration, o.Bin, o.Interval)
	res, err := soak.Run(ctx, o)
	if res != nil {
		soak.WriteLoads(os.Stdout, res.Loads)
		for _, p := range res.Stray {
			fmt.Printf("stray process after the server stopped: %d %s\n", p.PID, p.Comm)
		}
	}
	if err != nil {
		return false, err
	}
	if csvPath != "" {
		if err := writeCSV(csvPath, res.Samples); err != nil {
			return false, err
		}
	}
	fmt.Printf("\n%d samples over %v; growth is the least-squares slope over the second half\n\n", len(res.Samples), o.Duration)
	soak.WriteTable(os.Stdout, res.Stats)
	grows = len(res.Stray) > 0
	for _, s := range res.Stats {
		grows = grows || s.Grows()
	}
	if grows {
		fmt.Println("\nFAIL: something grows, or outlived the server")
	} else {
		fmt.Println("\nPASS: nothing grows beyond its threshold")
	}
	return grows, nil
}

// writeCSV writes the samples, a column per series.
func writeCSV(path string, samples []soak.Sample) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("barrhawk-soak: %w", err)
	}
	w := csv.NewWriter(f)
	row := []string{"seconds"}
	for _, s := range soak.AllSeries {
		row = append(row, s.Name)
	}
	w.Write(row)
	for _, s := range samples {
		row = append(row[:0], strconv.FormatFloat(s.At.Seconds(), 'f', 1, 64))
		for _, v := range s.V {
			row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.Write(row)
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return fmt.Errorf("barrhawk-soak: writing %s: %w", path, err)
	}
	return nil
}
