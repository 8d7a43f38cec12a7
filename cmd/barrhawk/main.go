// Command barrhawk is an MCP server for AI coding agents: a QA and
// automation toolbox whose tools run in replaceable worker processes.
// This file and its siblings only turn flags into configuration; the
// setup lives in internal/app.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/barrhawk/barrhawk/internal/browser"

	"github.com/spf13/cobra"
)

func main() {
	browser.ExecIfBrowserStart() // a browser started by an Igor: becomes chromium
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "barrhawk:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "barrhawk",
		Short:         "MCP server with a QA and automation toolbox whose tools run in crash-proof worker processes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("config", "", "config file (default: ./barrhawk.yaml, then ~/.barrhawk/barrhawk.yaml; env BARRHAWK_CONFIG)")
	root.PersistentFlags().String("log-level", "", "debug, info, warn or error (default info)")
	root.PersistentFlags().Int("max-igors", 0, "maximum Igor worker processes (default: CPU cores)")
	root.PersistentFlags().String("strategy", "", "dispatch strategy: round-robin, single, specialized, swarm or squad")
	root.PersistentFlags().Duration("tool-timeout", 0, "default tool timeout (default 30s)")
	root.AddCommand(serveCmd(), igorCmd(), toolsCmd(), callCmd(), spawnCmd(), taskCmd(), workerCmd(), recordCmd(), versionCmd())
	return root
}
