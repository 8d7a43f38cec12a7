package docker

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// runRisks are the parts of a docker_run that can reach past the container.
type runRisks struct {
	Privileged bool
	Network    string
	PID        string
	IPC        string
	CapAdd     []string
	Devices    []string
}

// checkRisks refuses what would let a container take over the host, unless
// docker.allowPrivileged is set.
func checkRisks(r runRisks, s Settings) error {
	if s.AllowPrivileged {
		return nil
	}
	why := ""
	switch {
	case r.Privileged:
		why = "argument \"privileged\": a privileged container has every capability and device of the host"
	case r.Network == "host":
		why = "argument \"network\": \"host\" shares the host's network stack"
	case r.PID == "host":
		why = "argument \"pid\": \"host\" lets the container see and signal the host's processes"
	case r.IPC == "host":
		why = "argument \"ipc\": \"host\" shares the host's IPC namespace"
	case len(r.CapAdd) > 0:
		why = "argument \"capAdd\": added capabilities (" + strings.Join(r.CapAdd, ", ") + ") widen what the container may do to the host"
	case len(r.Devices) > 0:
		why = "argument \"devices\": host devices (" + strings.Join(r.Devices, ", ") + ") give the container the host's hardware"
	default:
		return nil
	}
	return tool.Errorf(tool.CodeForbidden, "%s; refused: set docker.allowPrivileged: true in barrhawk.yaml to allow it", why)
}

// mount is one volumes entry: a bind mount (Source is an absolute host
// path) or a named volume (Source a name, or "" for an anonymous one).
type mount struct {
	Source   string
	Target   string
	ReadOnly bool
	Bind     bool
	Options  string
}

// parseVolume reads "source:target[:options]" (or "target" alone, an
// anonymous volume), as docker run -v takes it. A source that starts with
// "/", "." or "~" is a host path, taken from base when relative.
func parseVolume(v, base string) (mount, error) {
	parts := strings.Split(v, ":")
	var m mount
	switch len(parts) {
	case 1:
		m.Target = parts[0]
	case 2, 3:
		m.Source, m.Target = parts[0], parts[1]
		if len(parts) == 3 {
			m.Options = parts[2]
			for _, o := range strings.Split(parts[2], ",") {
				if o == "ro" || o == "readonly" {
					m.ReadOnly = true
				}
			}
		}
	default:
		return m, tool.Errorf(tool.CodeInvalidArgs, "argument \"volumes\": %q is not source:target[:ro]; write /host/dir:/in/container, name:/in/container or /in/container", v)
	}
	if !strings.HasPrefix(m.Target, "/") {
		return m, tool.Errorf(tool.CodeInvalidArgs, "argument \"volumes\": the target of %q must be an absolute path in the container (source:/target)", v)
	}
	if m.Source == "" {
		return m, nil
	}
	switch {
	case strings.HasPrefix(m.Source, "/"):
		m.Bind = true
	case strings.HasPrefix(m.Source, "~"):
		home, err := os.UserHomeDir()
		if err != nil {
			return m, tool.Errorf(tool.CodeInvalidArgs, "argument \"volumes\": %q: the home directory is unknown: %v", v, err)
		}
		m.Source, m.Bind = filepath.Join(home, strings.TrimPrefix(m.Source, "~")), true
	case strings.HasPrefix(m.Source, "."):
		m.Source, m.Bind = filepath.Join(base, m.Source), true
	}
	if m.Bind {
		m.Source = filepath.Clean(m.Source)
	}
	return m, nil
}

// checkMount refuses a bind mount of the Docker socket (unless
// docker.allowPrivileged) and of anything outside the call's allowed roots
// and docker.allowedMounts.
func checkMount(ctx context.Context, m mount, s Settings, daemon string) error {
	if !m.Bind {
		return nil
	}
	real := m.Source
	if r, err := filepath.EvalSymlinks(m.Source); err == nil {
		real = r
	}
	if isDockerSocket(real, daemon) && !s.AllowPrivileged {
		return tool.Errorf(tool.CodeForbidden, "argument \"volumes\": %s is the Docker socket; a container holding it controls the daemon and so the host; refused: set docker.allowPrivileged: true to allow it", m.Source)
	}
	return checkAllowed(ctx, "volumes", real, s, "the bind mount of "+m.Source+" (use a named volume, name:"+m.Target+", for data of the container's own)")
}

// checkAllowed refuses a host path (what is) outside the call's allowed
// roots and docker.allowedMounts, naming the argument and the setting.
func checkAllowed(ctx context.Context, arg, p string, s Settings, what string) error {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	allowed := append(rootsOf(ctx), s.AllowedMounts...)
	for _, a := range allowed {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			a = r
		}
		if fspath.Within(p, filepath.Clean(a)) {
			return nil
		}
	}
	return tool.Errorf(tool.CodeForbidden, "argument %q: %s is outside the allowed roots (%s): %s; refused: add the directory to docker.allowedMounts in barrhawk.yaml (or to tools.roots)", arg, p, strings.Join(allowed, ", "), what)
}

// rootsOf is the call's allowed roots, or the working directory.
func rootsOf(ctx context.Context) []string {
	if roots := tool.RootsFrom(ctx); len(roots) > 0 {
		return roots
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	return []string{wd}
}

// isDockerSocket reports whether p is the daemon's socket: the usual
// paths, or the unix socket the client speaks to.
func isDockerSocket(p, daemon string) bool {
	switch p {
	case "/var/run/docker.sock", "/run/docker.sock", "/var/run", "/run":
		return true
	}
	if sock, ok := strings.CutPrefix(daemon, "unix://"); ok {
		if r, err := filepath.EvalSymlinks(sock); err == nil {
			sock = r
		}
		return p == sock || fspath.Within(sock, p) && p != "/"
	}
	return false
}
