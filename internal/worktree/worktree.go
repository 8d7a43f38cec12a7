// Package worktree keeps git worktrees for jobs and sub-agents: each in a
// directory of its own under the repository's .barrhawk/worktrees (or a
// configured directory), on a branch of its own made from a ref. It runs
// the git binary with prompts off; adding and removing are serialised,
// across processes too, since git's own worktree bookkeeping is not safe
// to change concurrently.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// DefaultDir is where worktrees go, relative to the repository's top.
const DefaultDir = ".barrhawk/worktrees"

// BranchPrefix starts the branch of every worktree made here.
const BranchPrefix = "barrhawk/"

// Manager makes and removes the worktrees of one repository.
type Manager struct {
	repo string // the repository's top-level directory
	dir  string // where the worktrees go
	mu   sync.Mutex
}

// Worktree is one worktree made here.
type Worktree struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Head   string `json:"head"`
}

// New returns the manager of the repository holding repo; dir is where the
// worktrees go ("" for <top>/.barrhawk/worktrees; a relative dir is taken
// from the top).
func New(ctx context.Context, repo, dir string) (*Manager, error) {
	top, err := git(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository: %w", repo, err)
	}
	top = strings.TrimSpace(top)
	if dir == "" {
		dir = DefaultDir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(top, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the worktree directory: %w", err)
	}
	return &Manager{repo: top, dir: filepath.Clean(dir)}, nil
}

// Dir is where the worktrees go.
func (m *Manager) Dir() string { return m.dir }

// Repo is the repository's top-level directory.
func (m *Manager) Repo() string { return m.repo }

// validName is a worktree's name: at most 100 characters (a counted
// repetition would cost every start a 100-fold compiled regexp).
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Create makes worktree name on branch barrhawk/<name> from ref (HEAD when
// ""). A name in use, or a ref that does not resolve, is an error saying so.
func (m *Manager) Create(ctx context.Context, name, ref string) (*Worktree, error) {
	return m.CreateOn(ctx, name, BranchPrefix+name, ref)
}

// CreateOn is Create on a branch of the caller's naming (spawn/<id>).
func (m *Manager) CreateOn(ctx context.Context, name, branch, ref string) (*Worktree, error) {
	if len(name) > 100 || !validName.MatchString(name) || strings.Contains(name, "..") {
		return nil, fmt.Errorf("worktree name %q: use letters, digits, '.', '_' and '-' (at most 100)", name)
	}
	if ref == "" {
		ref = "HEAD"
	}
	// Reading refs needs no lock: only the worktree change below holds it,
	// so that jobs starting together wait for each other less.
	commit, err := git(ctx, m.repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("ref %q names no commit in %s", ref, m.repo)
	}
	if branch != BranchPrefix+name { // ours are valid by construction
		if _, err := git(ctx, m.repo, "check-ref-format", "--branch", branch); err != nil {
			return nil, fmt.Errorf("branch name %q is not valid: %w", branch, err)
		}
	}
	unlock, err := m.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := filepath.Join(m.dir, name)
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("worktree %q exists already (%s); remove it first or pick another name", name, path)
	}
	if _, err := git(ctx, m.repo, "worktree", "add", "--quiet", "-b", branch, path, strings.TrimSpace(commit)); err != nil {
		return nil, fmt.Errorf("create worktree %q from %s: %w", name, ref, err)
	}
	return &Worktree{Name: name, Path: path, Branch: branch, Head: strings.TrimSpace(commit)}, nil
}

// Remove removes worktree name, with its changes, and deletes its branch
// unless keepBranch.
func (m *Manager) Remove(ctx context.Context, name string, keepBranch bool) error {
	unlock, err := m.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return m.remove(ctx, name, keepBranch)
}

func (m *Manager) remove(ctx context.Context, name string, keepBranch bool) error {
	path := filepath.Join(m.dir, name)
	_, rmErr := git(ctx, m.repo, "worktree", "remove", "--force", "--force", path)
	if rmErr != nil {
		// Not a worktree any more (its directory was deleted, say): clear
		// what is left.
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("remove worktree %q: %w (and: %v)", name, rmErr, err)
		}
		if _, err := git(ctx, m.repo, "worktree", "prune"); err != nil {
			return fmt.Errorf("remove worktree %q: prune: %w", name, err)
		}
	}
	if keepBranch {
		return nil
	}
	if _, err := git(ctx, m.repo, "branch", "-D", "--quiet", BranchPrefix+name); err != nil && !strings.Contains(err.Error(), "not found") {
		return fmt.Errorf("delete branch %s: %w", BranchPrefix+name, err)
	}
	return nil
}

// List returns the worktrees made here (under Dir).
func (m *Manager) List(ctx context.Context) ([]Worktree, error) {
	out, err := git(ctx, m.repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	var list []Worktree
	var cur *Worktree
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "worktree "):
			p := filepath.Clean(strings.TrimPrefix(line, "worktree "))
			cur = nil
			if filepath.Dir(p) == m.dir {
				list = append(list, Worktree{Name: filepath.Base(p), Path: p})
				cur = &list[len(list)-1]
			}
		case cur != nil && strings.HasPrefix(line, "HEAD "):
			cur.Head = strings.TrimPrefix(line, "HEAD ")
		case cur != nil && strings.HasPrefix(line, "branch "):
			cur.Branch = strings.TrimPrefix(strings.TrimPrefix(line, "branch "), "refs/heads/")
		}
	}
	return list, nil
}

// Prune forgets worktrees whose directories are gone.
func (m *Manager) Prune(ctx context.Context) error {
	unlock, err := m.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := git(ctx, m.repo, "worktree", "prune"); err != nil {
		return fmt.Errorf("prune worktrees: %w", err)
	}
	return nil
}

// RemoveOrphans prunes, then removes every worktree here that keep does
// not claim (a worktree of no running job), with its branch, every
// directory under Dir that is no worktree, and every branch of a worktree
// (barrhawk/NAME) that is gone. It returns the names removed;
// a failure to remove one is reported and the others still go.
func (m *Manager) RemoveOrphans(ctx context.Context, keep func(name string) bool) ([]string, error) {
	if err := m.Prune(ctx); err != nil {
		return nil, err
	}
	list, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	unlock, err := m.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var removed []string
	var errs []error
	known := map[string]bool{}
	for _, w := range list {
		known[w.Name] = true
		if keep != nil && keep(w.Name) {
			continue
		}
		if err := m.remove(ctx, w.Name, false); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, w.Name)
	}
	entries, _ := os.ReadDir(m.dir)
	for _, e := range entries {
		if !e.IsDir() || known[e.Name()] || keep != nil && keep(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(m.dir, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e.Name())
	}
	// A branch whose worktree went without it (a cleanup killed half-way).
	branches, err := git(ctx, m.repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"+BranchPrefix)
	if err != nil {
		errs = append(errs, fmt.Errorf("list the worktrees' branches: %w", err))
	}
	for _, b := range strings.Fields(branches) {
		name := strings.TrimPrefix(b, BranchPrefix)
		if known[name] || keep != nil && keep(name) || slices.Contains(removed, name) {
			continue
		}
		if _, err := git(ctx, m.repo, "branch", "-D", "--quiet", b); err != nil {
			errs = append(errs, fmt.Errorf("delete branch %s: %w", b, err))
			continue
		}
		removed = append(removed, name)
	}
	slices.Sort(removed)
	return removed, errors.Join(errs...)
}

// git runs git in dir with prompts off and returns its output; an error
// carries git's own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}
