//go:build unix

// Package testsrv starts real database servers for tests: a PostgreSQL
// cluster (initdb, then postgres on a loopback port) and a redis-server,
// each in a temp directory of its own, stopped and removed at the end.
// A missing binary is an error naming the Debian package, never a skip:
// scripts/test installs them.
package testsrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// Password is the password of the PostgreSQL superuser "postgres" and of
// Redis, so that tests can check it never shows.
const Password = "s3cret-Pa55word"

// server is a child process that can be stopped and started again on the
// same port and data.
type server struct {
	name string
	dir  string
	port int
	args func() (string, []string)
	// ready reports whether the server answers (nil: its port accepts).
	ready func() error
	cred  *syscall.Credential
	cmd   *exec.Cmd
	done  chan struct{}
	log   *os.File
}

// Postgres is a running PostgreSQL cluster.
type Postgres struct {
	server
	// URL connects as the superuser with the password.
	URL string
}

// Redis is a running redis-server.
type Redis struct {
	server
	// URL connects with the password, to database 0.
	URL string
}

// Port is the loopback port the server listens on.
func (s *server) Port() int { return s.port }

// StartPostgres makes a cluster in a new temp directory and starts it.
// As root it runs as the "postgres" user, since PostgreSQL refuses root.
func StartPostgres() (*Postgres, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "barrhawk-pg-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{server: server{name: "postgres", dir: dir}}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL refuses to run as root and there is no postgres user (apt-get install postgresql makes it): %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(Password+"\n"), 0o644); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--pwfile", pw,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if p.port, err = freePort(); err != nil {
		return nil, err
	}
	p.args = func() (string, []string) {
		return filepath.Join(bin, "postgres"), []string{"-D", data, "-p", strconv.Itoa(p.port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=200", "-c", "shared_buffers=16MB"}
	}
	// PostgreSQL listens before it accepts sessions ("the database system
	// is starting up"); pg_isready tells them apart.
	p.ready = func() error {
		return exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port)).Run()
	}
	p.URL = fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres?sslmode=disable", Password, p.port)
	if err := p.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return p, nil
}

// postgresBin finds the newest /usr/lib/postgresql/N/bin.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/test, or apt-get install postgresql")
}

// StartRedis starts a redis-server with a password, no persistence.
func StartRedis() (*Redis, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("redis-server is not installed: run scripts/test, or apt-get install redis-server")
	}
	dir, err := os.MkdirTemp("", "barrhawk-redis-")
	if err != nil {
		return nil, err
	}
	r := &Redis{server: server{name: "redis-server", dir: dir}}
	if r.port, err = freePort(); err != nil {
		return nil, err
	}
	r.args = func() (string, []string) {
		return bin, []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--requirepass", Password, "--dir", dir}
	}
	r.URL = fmt.Sprintf("redis://:%s@127.0.0.1:%d/0", Password, r.port)
	if err := r.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}

// Start starts the server (again) and waits until its port accepts.
func (s *server) Start() error {
	if s.cmd != nil {
		return fmt.Errorf("%s is already running", s.name)
	}
	path, args := s.args()
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = procAttr(s.cred)
	log, err := os.OpenFile(filepath.Join(s.dir, s.name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o666)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	s.cmd, s.log, s.done = cmd, log, make(chan struct{})
	go func() { _ = cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), time.Second)
		if err == nil {
			c.Close()
			if s.ready == nil || s.ready() == nil {
				return nil
			}
		}
		select {
		case <-s.done:
			s.cmd = nil
			out, _ := os.ReadFile(log.Name())
			return fmt.Errorf("%s exited at start:\n%s", s.name, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	_ = s.Stop()
	return fmt.Errorf("%s did not listen on port %d within 30 s", s.name, s.port)
}

// Stop stops the server (SIGINT: PostgreSQL's fast shutdown, Redis's
// shutdown), killing it if it has not exited within 10 s.
func (s *server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
	s.cmd = nil
	return s.log.Close()
}

// Close stops the server and removes its directory.
func (s *server) Close() error {
	err := s.Stop()
	return errors.Join(err, os.RemoveAll(s.dir))
}

// Wait blocks until ctx ends or the server exits (for tests of a crash).
func (s *server) Wait(ctx context.Context) error {
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
