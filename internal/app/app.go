// Package app wires BarrHawk's parts together for the commands in
// cmd/barrhawk: the Doctor with its Igor command, the MCP server on stdio
// and HTTP, and the Igor process's own setup.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/admin"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/front"
	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/barrhawk/barrhawk/internal/igor"
	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/logging"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/barrhawk/barrhawk/internal/spawn"
	"github.com/barrhawk/barrhawk/internal/tools/builtin"
	"github.com/dlclark/regexp2/v2"
)

// IgorCommandEnv overrides the command that starts an Igor (space-free path
// of a barrhawk binary); tests and benchmarks use it. Default: this binary.
const IgorCommandEnv = "BARRHAWK_IGOR_BIN"

// NewDoctor builds the Doctor for cfg, starting Igors from this binary.
func NewDoctor(cfg config.Config, log *slog.Logger) (*doctor.Doctor, error) {
	d, _, err := newDoctor(cfg, log)
	return d, err
}

// QueueService is the job queue of cfg (the task_* tools, barrhawk task,
// the pool's workers), working both kinds of job: commands, and
// sub-agents' runs through a spawn service of its own.
func QueueService(cfg config.Config) *queue.Service {
	qs, _ := Services(cfg)
	return qs
}

// SpawnService is the sub-agent service of cfg (the spawn_* tools and
// barrhawk spawn), its runs queued on QueueService's queue.
func SpawnService(cfg config.Config) *spawn.Service {
	_, ss := Services(cfg)
	return ss
}

// Services are the job queue and the sub-agent service of cfg, each using
// the other: a spawn is a job of kind "agent" that the queue's workers run
// through the spawn service.
func Services(cfg config.Config) (*queue.Service, *spawn.Service) {
	s := cfg.Spawn
	if s.GitHubAPI == "" {
		s.GitHubAPI, _ = githubapi.FindAPI(cfg.GitHub.API)
	}
	ss := spawn.NewService(spawn.Config{Dir: s.Dir, ClaudePath: s.ClaudePath, GeminiPath: s.GeminiPath, IdleTimeout: s.IdleTimeout,
		TotalTimeout: s.TotalTimeout, Recovery: s.Recovery, GitHubAPI: s.GitHubAPI, SecretsDir: s.SecretsDir})
	w := cfg.Workers
	qs := queue.NewService(queue.Config{Count: w.Count, DB: w.DB, WorktreeDir: w.WorktreeDir, LogDir: w.LogDir, ArtifactDir: w.ArtifactDir,
		TempDir: filepath.Join(os.TempDir(), "barrhawk-workers"), KeepWorktrees: w.KeepWorktrees, EnvAllow: w.EnvAllow, ConfigPath: cfg.File,
		RunAgent: func(ctx context.Context, id int64, job jobs.AgentJob) (any, string, error) {
			st := ss.RunJob(ctx, id, job)
			return st, st.Status, nil
		},
		EndAgent: ss.EndOrphan})
	ss.UseQueue(qs)
	return qs, ss
}

// newDoctor is NewDoctor with the job queue the Doctor's tools use, for
// serve to start and stop its embedded pool.
func newDoctor(cfg config.Config, log *slog.Logger) (*doctor.Doctor, *queue.Service, error) {
	bin := os.Getenv(IgorCommandEnv)
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("finding this binary to start Igors: %w", err)
		}
		bin = exe
	}
	env := append(os.Environ(), "BARRHAWK_LOG_LEVEL="+cfg.Log.Level)
	qs, ss := Services(cfg)
	tools := append(builtin.Tools(), ss.Tools()...)
	d, err := doctor.New(doctor.Options{
		Config:      cfg,
		IgorCommand: []string{bin, "igor"},
		IgorEnv:     env,
		Tools:       append(tools, qs.Tools()...),
		Log:         log,
	})
	return d, qs, err
}

// ServeOptions say how to serve.
type ServeOptions struct {
	Config config.Config
	// HTTP, if set, also serves streamable HTTP on this address.
	HTTP        string
	AllowRemote bool
	// Stdio serves a session on stdin/stdout. With HTTP set, the process
	// keeps serving HTTP after the stdio client disconnects.
	Stdio bool
	// CPUProfile, if set, writes a CPU profile of the front to this file.
	CPUProfile string
	// MemProfile, if set, writes the front's allocation profile to this
	// file when it stops.
	MemProfile string
	// Admin, if set, serves the Beta HTTP admin API on this address.
	Admin            string
	AdminAllowRemote bool
	// Dashboard, if set, serves the web UI on this address (else
	// dashboard.addr).
	Dashboard            string
	DashboardAllowRemote bool
}

// regexMatchTimeout bounds one regular-expression match in a dynamic tool.
const regexMatchTimeout = 5 * time.Second

// gcPercent is the GC target both the front and the Igors run with unless
// GOGC is set. Their live heaps are a few MB, so the GC target mostly sets
// the heap's floor (4 MB × GOGC/100) and how often it is collected. 400
// was chosen when the SDK allocated ~100 KB per call; at ~4 KB per call
// now, 200 costs one or two microseconds per call against 400 and keeps
// the peak under load at 59 MiB (PSS, front and two Igors) instead of 83
// (docs/PERFORMANCE.md).
const gcPercent = 200

// trimAfter is how long after it starts serving the front lets go of
// the pages of its executable that start-up touched (trimText): the
// queue's and the record's start are done by then.
const trimAfter = 2 * time.Second

// trimText lets go of the executable's pages that start-up mapped and
// nothing may touch again (package initialization, the registry's
// building, the pages the kernel maps around each one touched): about 25
// of an Igor's 35 MiB of mapped code, for every process of the tree, as
// what runs next maps again what it uses (docs/PERFORMANCE.md).
func trimText(log *slog.Logger) {
	n, err := proc.TrimText()
	if err != nil {
		log.Debug("letting go of start-up's pages", "err", err)
		return
	}
	log.Debug("let go of start-up's pages", "mapped", n)
}

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

// Serve runs the front until the stdio client disconnects (when serving
// stdio only) or SIGINT/SIGTERM arrives, then stops every Igor.
func Serve(opts ServeOptions) error {
	tuneGC()
	log, level, closer := logging.New(opts.Config.Log)
	defer closer.Close()
	if err := proc.BecomeSubreaper(); err != nil {
		log.Warn("cannot become child subreaper; orphans of killed Igors may linger as zombies", "err", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go proc.Reap(ctx, 5*time.Second, log)
	if opts.CPUProfile != "" {
		f, err := os.Create(opts.CPUProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if opts.MemProfile != "" {
		defer writeAllocs(opts.MemProfile, log)
	}

	dashAddr := cmp.Or(opts.Dashboard, opts.Config.Dashboard.Addr)
	if dashAddr != "" {
		// The dashboard follows each call: task:started and
		// task:completed are what its Igors page shows of it.
		opts.Config.Events.Tasks = true
	}
	opening := openRecord(opts.Config)
	d, qs, err := newDoctor(opts.Config, log)
	if err != nil {
		return err
	}
	defer d.Close()
	defer func() {
		// The embedded pool drains: running jobs finish (or are handed back
		// after the grace), then the queue closes.
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := qs.Stop(sctx); err != nil {
			log.Warn("stopping the worker pool", "err", err)
		}
	}()
	srv := front.New(d, log, level)
	recording, closeRecord := startRecord(ctx, opts.Config, opening, d, qs, srv, log)
	defer closeRecord()

	// Listen before the Igors start: they must know the server's own
	// addresses, which dynamic tools may not fetch.
	var own []string
	var httpLn net.Listener
	if opts.HTTP != "" {
		if httpLn, err = front.ListenHTTP(opts.HTTP, opts.AllowRemote); err != nil {
			return err
		}
		own = append(own, httpLn.Addr().String())
		if opts.Config.MCP.Token == "" {
			log.Warn("MCP over HTTP without a token: any local process can call every tool; set mcp.token or BARRHAWK_MCP_TOKEN")
		}
	}
	var adminErr <-chan error
	if opts.Admin != "" {
		token := opts.Config.Admin.Token
		if token == "" {
			if token, err = admin.NewToken(); err != nil {
				return err
			}
			log.Warn("admin API: no admin.token or BARRHAWK_ADMIN_TOKEN set; generated one for this run", "token", token)
		}
		h, err := admin.NewHandler(&adminBackend{d: d, shutdown: stop}, token, log)
		if err != nil {
			return err
		}
		addr, errs, err := admin.Serve(ctx, opts.Admin, opts.AdminAllowRemote, h)
		if err != nil {
			return err
		}
		adminErr = errs
		own = append(own, addr.String())
		log.Info("admin API", "url", "http://"+addr.String()+"/")
	}
	var dashErr <-chan error
	if dashAddr != "" {
		a, errs, err := serveDashboard(ctx, opts, dashAddr, d, recording, log)
		if err != nil {
			return err
		}
		dashErr = errs
		own = append(own, a.String())
	}
	d.SetOwnAddrs(own...)
	if err := d.Start(ctx); err != nil {
		return err
	}
	srv.Ready()
	go d.Serve(ctx)
	go d.WarmIntent() // off the path to the first answer, as the queue below
	// The queue opens (and migrates its tables) off the path to the first
	// answer: a client waits for initialize, not for SQLite.
	go func() {
		if err := qs.Start(ctx); err != nil && ctx.Err() == nil {
			log.Error("the embedded worker pool did not start; task_* tools still answer", "err", err)
		}
	}()
	log.Info("barrhawk serving", "tools", d.Registry().Len(), "maxIgors", opts.Config.Igors.MaxWorkers, "strategy", opts.Config.Igors.Strategy, "config", opts.Config.File, "stdio", opts.Stdio, "http", opts.HTTP)
	time.AfterFunc(trimAfter, func() { trimText(log) })

	errc := make(chan error, 3)
	running := 0
	if httpLn != nil {
		log.Info("MCP over streamable HTTP", "url", "http://"+httpLn.Addr().String()+"/")
		running++
		go func() { errc <- srv.ServeHTTP(ctx, httpLn) }()
	}
	if opts.Stdio {
		running++
		go func() {
			err := srv.ServeStdio(ctx)
			if opts.HTTP != "" {
				log.Info("stdio client disconnected; still serving HTTP")
				<-ctx.Done()
			}
			errc <- err
		}()
	}
	if adminErr != nil {
		running++
		go func() { errc <- <-adminErr; <-ctx.Done() }()
	}
	if dashErr != nil {
		running++
		go func() { errc <- <-dashErr; <-ctx.Done() }()
	}
	if running == 0 {
		return errors.New("nothing to serve: enable stdio, or give --http, --admin or --dashboard")
	}
	err = <-errc
	stop()
	log.Info("barrhawk stopping")
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// writeAllocs writes the allocation profile to path.
func writeAllocs(path string, log *slog.Logger) {
	f, err := os.Create(path)
	if err != nil {
		log.Warn("memory profile", "err", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		log.Warn("memory profile", "err", err)
	}
}

// RunIgor is the Igor process: protocol on the real stdout, which is then
// pointed at stderr so that nothing else (a stray print, a child process)
// can write to the protocol stream.
func RunIgor(id string) error {
	tuneGC()
	// goja runs some regular expressions (backreferences, lookarounds) on
	// regexp2, which vm.Interrupt cannot stop: bound each match instead. A
	// match past this counts as no match.
	regexp2.DefaultMatchTimeout = regexMatchTimeout
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logging.ParseLevel(os.Getenv("BARRHAWK_LOG_LEVEL"))}))
	out, err := protocolOut()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// BARRHAWK_IGOR_PROFILE=PREFIX writes each Igor's CPU profile to
	// PREFIX.<pid>.cpu and its allocation profile to PREFIX.<pid>.allocs
	// (docs/PERFORMANCE.md); by pid, since spares all start as "spare".
	if prefix := os.Getenv("BARRHAWK_IGOR_PROFILE"); prefix != "" {
		prefix += "." + strconv.Itoa(os.Getpid())
		if f, err := os.Create(prefix + ".cpu"); err == nil {
			defer f.Close()
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
		defer writeAllocs(prefix+".allocs", log)
	}
	tools := builtin.Tools()
	trimText(log) // before the first message: a spare waits with what it needs
	return igor.Run(ctx, igor.Options{In: os.Stdin, Out: out, Log: log, ID: id, Tools: tools})
}
