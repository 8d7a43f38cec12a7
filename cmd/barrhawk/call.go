package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/logging"
	"github.com/spf13/cobra"
)

func callCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "call NAME [JSON]",
		Short: "Call one tool through the real path (front and Igor) and print its result",
		Long: `Call one tool the way an MCP client would, through the front and an Igor
worker process, and print the result as JSON. Arguments are a JSON object;
"-" reads them from stdin. A failed call prints "CODE: message" on stderr
and exits with status 1.

  barrhawk call hash_text '{"text":"hello","algorithm":"sha256"}'`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			raw := []byte("{}")
			if len(args) == 2 {
				raw = []byte(args[1])
				if args[1] == "-" {
					if raw, err = io.ReadAll(os.Stdin); err != nil {
						return fmt.Errorf("reading arguments from stdin: %w", err)
					}
				}
			}
			if !json.Valid(raw) {
				return fmt.Errorf("arguments are not valid JSON: %s (want an object, such as '{\"text\":\"hi\"}')", bytes.TrimSpace(raw))
			}
			if cfg.Log.Level == "info" && !cmd.Flags().Changed("log-level") {
				cfg.Log.Level = "warn" // keep a one-shot call quiet
			}
			log, _, closer := logging.New(cfg.Log)
			defer closer.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			d, err := app.NewDoctor(cfg, log)
			if err != nil {
				return err
			}
			if err := d.Start(ctx); err != nil {
				return err
			}
			res := d.Call(ctx, args[0], raw)
			d.Close()
			if res.Err != nil {
				fmt.Fprintln(os.Stderr, res.Err.Text())
				os.Exit(1)
			}
			var out bytes.Buffer
			if json.Indent(&out, res.Value, "", "  ") != nil {
				out.Write(res.Value)
			}
			out.WriteByte('\n')
			_, err = os.Stdout.Write(out.Bytes())
			return err
		},
	}
}
