package dynamic

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// DefaultKeep is how many snapshots Snapshots keeps when Keep is zero.
const DefaultKeep = 20

// PreRollbackName is the name of the snapshot Restore takes of the tools
// directory before it rolls it back. Latest skips such snapshots.
const PreRollbackName = "pre-rollback"

// InitialName is the name of the snapshot EnsureInitial creates.
const InitialName = "initial"

// MaxSnapshotNameLen is the longest snapshot name Create accepts.
const MaxSnapshotNameLen = 64

var snapshotNameRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]*$`)

// snapshotIDRE splits a snapshot ID into its name and its Unix time in ms.
var snapshotIDRE = regexp.MustCompile(`^([a-zA-Z0-9][a-zA-Z0-9_-]*)_([0-9]+)$`)

// Snapshot describes one saved state of the tools directory.
type Snapshot struct {
	// ID is "<name>_<unix ms>", e.g. "before_refactor_1706012345678"; it is
	// also the snapshot's directory name.
	ID string
	// Name is the name given to Create.
	Name string
	// CreatedAt is when the snapshot was taken.
	CreatedAt time.Time
	// ToolCount is the number of tool files in the snapshot.
	ToolCount int
}

// String formats the snapshot as the seed's worker_snapshots lists it:
// "before_refactor_1706012345678 (36 tools, 2026-01-23T14:00:00.000Z)".
func (s Snapshot) String() string {
	unit := "tools"
	if s.ToolCount == 1 {
		unit = "tool"
	}
	return fmt.Sprintf("%s (%d %s, %s)", s.ID, s.ToolCount, unit, s.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// snapshotMeta is metadata.json.
type snapshotMeta struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	CreatedAt string         `json:"createdAt"`
	ToolCount int            `json:"toolCount"`
	Files     []snapshotFile `json:"files"`
}

// snapshotFile is one tool file of a snapshot: its base name with extension
// ("reverse_string.ts") and the hex SHA-256 of its content.
type snapshotFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Snapshots saves and restores the tool files of ToolsDir under Dir. Each
// snapshot is a directory Dir/<name>_<unix ms>/ holding metadata.json and
// tools/ with a copy of every tool file (see IsToolFile), and nothing else.
//
// A snapshot appears whole or not at all: it is built in a hidden directory
// and renamed into place. The methods of one Snapshots value are serialized;
// a Snapshots must not be copied after first use.
type Snapshots struct {
	// Dir holds the snapshots, e.g. ~/.barrhawk/snapshots.
	Dir string
	// ToolsDir is the dynamic tools directory.
	ToolsDir string
	// Keep is how many snapshots to keep; after each Create the oldest
	// beyond Keep are deleted. Zero or less means DefaultKeep.
	Keep int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu sync.Mutex
}

func (s *Snapshots) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Snapshots) keep() int {
	if s.Keep <= 0 {
		return DefaultKeep
	}
	return s.Keep
}

// Create snapshots the tool files of ToolsDir under name (which must match
// ^[a-zA-Z0-9][a-zA-Z0-9_-]*$, at most MaxSnapshotNameLen characters). The ID
// is name_<unix ms>; the ms are bumped past the newest existing snapshot, so
// IDs are distinct and their order is the order of creation even when two
// snapshots are taken in the same millisecond. A missing ToolsDir is
// snapshotted as empty. Then the oldest snapshots beyond Keep are deleted
// (never the new one); if that fails, Create returns the new snapshot and
// the error.
func (s *Snapshots) Create(name string) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.create(name, "")
}

// create is Create with s.mu held; protect names a snapshot that pruning
// must keep besides the new one.
func (s *Snapshots) create(name, protect string) (Snapshot, error) {
	if !snapshotNameRE.MatchString(name) || len(name) > MaxSnapshotNameLen {
		return Snapshot{}, tool.Errorf(tool.CodeInvalidArgs,
			"invalid snapshot name %q: a snapshot name is a letter or digit followed by letters, digits, '_' or '-' (^[a-zA-Z0-9][a-zA-Z0-9_-]*$), at most %d characters",
			name, MaxSnapshotNameLen)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
	}
	s.cleanStale()

	files, err := listToolFiles(s.ToolsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Snapshot{}, fmt.Errorf("create snapshot %s: list tools: %w", name, err)
	}
	tmp, err := os.MkdirTemp(s.Dir, ".creating-")
	if err != nil {
		return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	toolsDir := filepath.Join(tmp, "tools")
	if err := os.Mkdir(toolsDir, 0o755); err != nil {
		return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
	}
	created := s.now()
	meta := snapshotMeta{Name: name, CreatedAt: created.UTC().Format(time.RFC3339Nano), Files: []snapshotFile{}}
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
		}
		base := f.Name + f.Ext
		if err := os.WriteFile(filepath.Join(toolsDir, base), data, 0o644); err != nil {
			return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
		}
		meta.Files = append(meta.Files, snapshotFile{Name: base, SHA256: sha256Hex(data)})
	}
	meta.ToolCount = len(meta.Files)

	existing, err := s.list()
	if err != nil {
		return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
	}
	ms := created.UnixMilli()
	for _, e := range existing {
		if m := idMillis(e); m >= ms {
			ms = m + 1
		}
	}
	// Another process may take the same ID between our listing and the
	// rename: the rename then fails (the target is not empty) and we bump.
	for attempt := 0; ; attempt++ {
		meta.ID = name + "_" + strconv.FormatInt(ms, 10)
		data, err := json.MarshalIndent(meta, "", "  ")
		if err != nil {
			return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(tmp, "metadata.json"), append(data, '\n'), 0o644); err != nil {
			return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
		}
		final := filepath.Join(s.Dir, meta.ID)
		if _, err := os.Lstat(final); err == nil {
			ms++
			continue
		}
		err = os.Rename(tmp, final)
		if err == nil {
			break
		}
		if attempt < 100 && (errors.Is(err, fs.ErrExist) || isNotEmpty(err)) {
			ms++
			continue
		}
		return Snapshot{}, fmt.Errorf("create snapshot %s: %w", name, err)
	}
	done = true
	snap := Snapshot{ID: meta.ID, Name: name, CreatedAt: created, ToolCount: meta.ToolCount}
	if err := s.prune(snap.ID, protect); err != nil {
		return snap, fmt.Errorf("snapshot %s created, but pruning old snapshots failed: %w", snap.ID, err)
	}
	return snap, nil
}

// isNotEmpty reports whether err is ENOTEMPTY, which rename(2) returns when
// the target is a non-empty directory.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY)
}

// prune deletes the oldest snapshots beyond Keep, except keepA and keepB.
func (s *Snapshots) prune(keepA, keepB string) error {
	all, err := s.list()
	if err != nil {
		return err
	}
	kept := 0
	var errs []error
	for _, snap := range all {
		if snap.ID == keepA || snap.ID == keepB || kept < s.keep() {
			kept++
			continue
		}
		if err := s.remove(snap.ID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// remove deletes one snapshot: renamed to a hidden name first, so that it
// vanishes from List at once even if the removal stops half way.
func (s *Snapshots) remove(id string) error {
	gone := filepath.Join(s.Dir, ".deleting-"+id+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Rename(filepath.Join(s.Dir, id), gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // another process pruned it
		}
		return fmt.Errorf("delete snapshot %s: %w", id, err)
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("delete snapshot %s: %w", id, err)
	}
	return nil
}

// cleanStale removes hidden work directories (.creating-*, .deleting-*) left
// by a process that stopped half way, once they are an hour old.
func (s *Snapshots) cleanStale() {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || !(strings.HasPrefix(n, ".creating-") || strings.HasPrefix(n, ".deleting-")) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(s.Dir, n))
		}
	}
}

// List returns the snapshots, newest first. Directories without a readable
// metadata.json are not snapshots and are skipped; so is a missing Dir.
func (s *Snapshots) List() ([]Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snaps, err := s.list()
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	return snaps, nil
}

// list is List with s.mu held.
func (s *Snapshots) list() ([]Snapshot, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		meta, err := readMeta(filepath.Join(s.Dir, e.Name()))
		if err != nil {
			continue
		}
		snap := Snapshot{ID: e.Name(), Name: meta.Name, ToolCount: meta.ToolCount}
		snap.CreatedAt, _ = time.Parse(time.RFC3339Nano, meta.CreatedAt)
		if snap.Name == "" {
			if m := snapshotIDRE.FindStringSubmatch(snap.ID); m != nil {
				snap.Name = m[1]
			}
		}
		out = append(out, snap)
	}
	sort.SliceStable(out, func(i, j int) bool {
		mi, mj := idMillis(out[i]), idMillis(out[j])
		if mi != mj {
			return mi > mj
		}
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// idMillis is the Unix time in ms in the snapshot's ID, or its CreatedAt
// when the ID has none.
func idMillis(s Snapshot) int64 {
	if m := snapshotIDRE.FindStringSubmatch(s.ID); m != nil {
		if v, err := strconv.ParseInt(m[2], 10, 64); err == nil {
			return v
		}
	}
	return s.CreatedAt.UnixMilli()
}

// readMeta reads dir/metadata.json.
func readMeta(dir string) (snapshotMeta, error) {
	var meta snapshotMeta
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return meta, err
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return meta, fmt.Errorf("%s: %w", filepath.Join(dir, "metadata.json"), err)
	}
	return meta, nil
}

// Latest returns the newest snapshot that is not a pre-rollback snapshot.
// With none, the error is a *tool.Error with code NOT_FOUND.
func (s *Snapshots) Latest() (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest()
}

func (s *Snapshots) latest() (Snapshot, error) {
	all, err := s.list()
	if err != nil {
		return Snapshot{}, fmt.Errorf("latest snapshot: %w", err)
	}
	for _, snap := range all {
		if snap.Name != PreRollbackName {
			return snap, nil
		}
	}
	return Snapshot{}, tool.Errorf(tool.CodeNotFound, "no snapshot to roll back to in %s", s.Dir)
}

// Restore rolls ToolsDir back to snapshot id; "" means Latest. id may also
// be a bare snapshot name ("before_refactor"), meaning the newest snapshot
// of that name. First it reads the snapshot and checks every file against
// the SHA-256 in its metadata (a damaged snapshot changes nothing); then it
// takes a "pre-rollback" snapshot of the current state; then it makes
// ToolsDir hold exactly the snapshot's tool files: tool files not in the
// snapshot are removed, the others written atomically (unchanged files are
// left untouched), and everything is read back and checked. barrhawk.d.ts
// and other non-tool files are left alone. An unknown id is a *tool.Error
// with code NOT_FOUND listing up to five available IDs.
func (s *Snapshots) Restore(id string) (restored, preRollback Snapshot, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()

	target, err := s.resolve(id)
	if err != nil {
		return Snapshot{}, Snapshot{}, err
	}
	dir := filepath.Join(s.Dir, target.ID)
	meta, err := readMeta(dir)
	if err != nil {
		return Snapshot{}, Snapshot{}, fmt.Errorf("restore snapshot %s: %w", target.ID, err)
	}
	want := make(map[string][]byte, len(meta.Files))
	for _, f := range meta.Files {
		if !IsToolFile(f.Name) || filepath.Base(f.Name) != f.Name {
			return Snapshot{}, Snapshot{}, fmt.Errorf("restore snapshot %s: metadata names %q, which is not a tool file", target.ID, f.Name)
		}
		data, err := os.ReadFile(filepath.Join(dir, "tools", f.Name))
		if err != nil {
			return Snapshot{}, Snapshot{}, fmt.Errorf("restore snapshot %s: snapshot is damaged: %w", target.ID, err)
		}
		if got := sha256Hex(data); got != f.SHA256 {
			return Snapshot{}, Snapshot{}, fmt.Errorf("restore snapshot %s: snapshot is damaged: %s has sha256 %s, metadata says %s", target.ID, f.Name, got, f.SHA256)
		}
		want[f.Name] = data
	}

	preRollback, err = s.create(PreRollbackName, target.ID)
	if err != nil && preRollback.ID == "" {
		return Snapshot{}, Snapshot{}, fmt.Errorf("restore snapshot %s: %w", target.ID, err)
	}
	// A pruning failure after the pre-rollback snapshot does not stop the
	// rollback.

	if err := os.MkdirAll(s.ToolsDir, 0o755); err != nil {
		return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: %w", target.ID, err)
	}
	current, err := listToolFiles(s.ToolsDir)
	if err != nil {
		return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: %w", target.ID, err)
	}
	for _, f := range current {
		if _, ok := want[f.Name+f.Ext]; ok {
			continue
		}
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: %w", target.ID, err)
		}
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(s.ToolsDir, n)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, want[n]) {
			continue
		}
		if err := writeFileAtomic(s.ToolsDir, n, want[n], 0o644); err != nil {
			return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: %w", target.ID, err)
		}
	}

	// Check: exactly the snapshot's files, byte for byte.
	after, err := listToolFiles(s.ToolsDir)
	if err != nil {
		return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: check: %w", target.ID, err)
	}
	for _, f := range after {
		data, ok := want[f.Name+f.Ext]
		if !ok {
			return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: check: %s appeared in %s during the rollback", target.ID, f.Name+f.Ext, s.ToolsDir)
		}
		got, err := os.ReadFile(f.Path)
		if err != nil {
			return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: check: %w", target.ID, err)
		}
		if !bytes.Equal(got, data) {
			return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: check: %s differs from the snapshot (changed during the rollback?)", target.ID, f.Name+f.Ext)
		}
	}
	if len(after) != len(want) {
		return Snapshot{}, preRollback, fmt.Errorf("restore snapshot %s: check: %d tool files in %s, the snapshot has %d", target.ID, len(after), s.ToolsDir, len(want))
	}
	return target, preRollback, nil
}

// resolve finds the snapshot Restore means by id.
func (s *Snapshots) resolve(id string) (Snapshot, error) {
	if id == "" {
		snap, err := s.latest()
		if err != nil {
			return Snapshot{}, fmt.Errorf("restore: %w", err)
		}
		return snap, nil
	}
	all, err := s.list()
	if err != nil {
		return Snapshot{}, fmt.Errorf("restore snapshot %s: %w", id, err)
	}
	for _, snap := range all {
		if snap.ID == id {
			return snap, nil
		}
	}
	for _, snap := range all { // newest first
		if snap.Name == id {
			return snap, nil
		}
	}
	ids := make([]string, 0, 5)
	for _, snap := range all {
		if len(ids) == 5 {
			break
		}
		ids = append(ids, snap.ID)
	}
	avail := "none"
	if len(ids) > 0 {
		avail = strings.Join(ids, ", ")
		if len(all) > len(ids) {
			avail += fmt.Sprintf(" (and %d more)", len(all)-len(ids))
		}
	}
	return Snapshot{}, tool.Errorf(tool.CodeNotFound, "snapshot %q not found; available: %s", id, avail)
}

// Metadata returns the metadata.json of the snapshot with this exact id:
// its name, time, tool count and each file's SHA-256.
func (s *Snapshots) Metadata(id string) ([]byte, error) {
	if !snapshotIDRE.MatchString(id) {
		return nil, tool.Errorf(tool.CodeNotFound, "%q is not a snapshot id (name_unixms)", id)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, id, "metadata.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, tool.Errorf(tool.CodeNotFound, "snapshot %q not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return b, nil
}

// EnsureInitial creates the "initial" snapshot when there is no snapshot at
// all, and reports whether it did.
func (s *Snapshots) EnsureInitial() (created bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.list()
	if err != nil {
		return false, fmt.Errorf("initial snapshot: %w", err)
	}
	if len(all) > 0 {
		return false, nil
	}
	if _, err := s.create(InitialName, ""); err != nil {
		return false, fmt.Errorf("initial snapshot: %w", err)
	}
	return true, nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
