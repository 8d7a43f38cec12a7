package main

import (
	"github.com/spf13/cobra"

	"github.com/barrhawk/barrhawk/internal/app"
)

func serveCmd() *cobra.Command {
	var opts app.ServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP on stdio (and streamable HTTP with --http)",
		Long: `Serve MCP on stdin/stdout: the command an MCP client starts.

With --http 127.0.0.1:PORT it also serves MCP over streamable HTTP at
http://127.0.0.1:PORT/, and keeps serving after the stdio client leaves,
until SIGINT or SIGTERM. Logs go to stderr, never stdout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			opts.Config = cfg
			return app.Serve(opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "also serve MCP over streamable HTTP on this loopback address, such as 127.0.0.1:8765")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "allow --http on a non-loopback address (tools run on this machine: think twice)")
	cmd.Flags().BoolVar(&opts.Stdio, "stdio", true, "serve a session on stdin/stdout")
	cmd.Flags().Bool("all-tools", false, "list every tool in tools/list (tools.listProfile: all); by default a compact profile, the rest found with tool_search")
	cmd.Flags().StringVar(&opts.Admin, "admin", "", "serve the HTTP admin API (GET /health, GET /tools, POST /call, POST /reload, DELETE /tools/NAME, POST /shutdown) on this loopback address; token from admin.token or BARRHAWK_ADMIN_TOKEN")
	cmd.Flags().BoolVar(&opts.AdminAllowRemote, "admin-allow-remote", false, "allow --admin on a non-loopback address")
	cmd.Flags().StringVar(&opts.Dashboard, "dashboard", "", "serve the web dashboard (Igors, calls, tools, jobs, test runs, live) on this loopback address, such as 127.0.0.1:8766; the URL that opens it, token included, is printed on stderr")
	cmd.Flags().String("record-db", "", "the record of calls and test runs (dashboard.db): an SQLite file, or a postgres:// URL a team's servers and CI share")
	cmd.Flags().BoolVar(&opts.DashboardAllowRemote, "dashboard-allow-remote", false, "allow --dashboard on a non-loopback address")
	cmd.Flags().StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of the front to this file (for docs/PERFORMANCE.md work)")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	cmd.Flags().StringVar(&opts.MemProfile, "memprofile", "", "write the front's allocation profile to this file at exit (for docs/PERFORMANCE.md work)")
	_ = cmd.Flags().MarkHidden("memprofile")
	return cmd
}

func igorCmd() *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "igor",
		Short: "Run one Igor worker process (internal: started by serve)",
		Long: `Run one Igor worker: it speaks the Doctor-Igor protocol (newline-delimited
JSON) on stdin and stdout and exits when stdin closes. BarrHawk's front starts
Igors itself; you never need to run this by hand.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return app.RunIgor(id) },
	}
	cmd.Flags().StringVar(&id, "id", "igor", "this Igor's id")
	return cmd
}
