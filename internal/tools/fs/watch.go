package fs

import (
	"context"
	"crypto/rand"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/fsnotify/fsnotify"
)

// kindWatch is the resource kind of fs_watch's watchers.
const kindWatch = tool.KindWatch

// Bounds of a watcher.
const (
	defaultWatchBuffer = 1000
	maxWatchBuffer     = 100000
	defaultDebounce    = 50 * time.Millisecond
)

// watchEvent is one change seen by a watcher.
type watchEvent struct {
	Seq  uint64 `json:"seq"`
	Op   string `json:"op"`
	Path string `json:"path"`
	Time string `json:"time"`
	when time.Time
}

// watcher is one fs_watch: fsnotify on a directory (and its subdirectories
// when recursive), its events kept in a bounded buffer.
type watcher struct {
	id        string
	dir       string
	recursive bool
	debounce  time.Duration
	w         *fsnotify.Watcher
	done      chan struct{}

	mu      sync.Mutex
	events  []watchEvent
	limit   int
	seq     uint64
	dropped int
	errors  []string
	// gone says when the watched directory itself was removed or moved:
	// fsnotify sends nothing after that, even for a new directory of the
	// same name.
	gone string
}

// goneNote tells what a watcher whose directory went means, or is "".
func (wt *watcher) goneNote() string {
	if wt.gone == "" {
		return ""
	}
	return fmt.Sprintf("the watched directory %s was removed or moved away at %s, so no further events come (not even for a new directory of that name); stop this watcher, and start another once the directory is there again", wt.dir, wt.gone)
}

func (wt *watcher) Close() error {
	err := wt.w.Close()
	<-wt.done
	return err
}

// loop moves fsnotify's events into the buffer until the watcher closes.
func (wt *watcher) loop() {
	defer close(wt.done)
	for {
		select {
		case ev, ok := <-wt.w.Events:
			if !ok {
				return
			}
			wt.add(ev)
		case err, ok := <-wt.w.Errors:
			if !ok {
				return
			}
			wt.mu.Lock()
			if len(wt.errors) < 10 {
				wt.errors = append(wt.errors, err.Error())
			}
			wt.mu.Unlock()
		}
	}
}

func (wt *watcher) add(ev fsnotify.Event) {
	now := time.Now()
	rel, err := filepath.Rel(wt.dir, ev.Name)
	if err != nil {
		rel = ev.Name
	}
	rel = filepath.ToSlash(rel)
	op := strings.ToLower(strings.ReplaceAll(ev.Op.String(), "|", ","))
	if wt.recursive && ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			_ = wt.addTree(ev.Name) // a directory gone again at once needs no watch
		}
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if ev.Name == wt.dir && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && wt.gone == "" {
		wt.gone = now.UTC().Format(time.RFC3339Nano)
	}
	// Debounce: the same change to the same path within the window is one
	// event, its time the latest.
	for i := len(wt.events) - 1; i >= 0 && now.Sub(wt.events[i].when) <= wt.debounce; i-- {
		if e := &wt.events[i]; e.Path == rel && e.Op == op {
			e.when, e.Time = now, now.UTC().Format(time.RFC3339Nano)
			return
		}
	}
	if len(wt.events) == wt.limit {
		wt.events = append(wt.events[:0], wt.events[1:]...)
		wt.dropped++
	}
	wt.seq++
	wt.events = append(wt.events, watchEvent{Seq: wt.seq, Op: op, Path: rel, Time: now.UTC().Format(time.RFC3339Nano), when: now})
}

// addTree watches dir and, when recursive, every directory below it
// (symbolic links not followed, so the watch stays inside the root).
func (wt *watcher) addTree(dir string) error {
	if !wt.recursive {
		return wt.w.Add(dir)
	}
	return filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return wt.w.Add(p)
		}
		return nil
	})
}

func fsWatch() tool.Tool {
	type args struct {
		Action     string  `json:"action"`
		Path       string  `json:"path"`
		ID         string  `json:"id"`
		Recursive  bool    `json:"recursive"`
		Debounce   *int    `json:"debounce"`
		BufferSize int     `json:"bufferSize"`
		Since      *uint64 `json:"since"`
		Clear      bool    `json:"clear"`
	}
	return tool.Tool{
		Def: def("fs_watch", "Watch a directory for changes (fsnotify). action start {path, recursive, debounce, bufferSize} → {id}; "+
			"events {id, since, clear} → {events: [{seq, op (create, write, remove, rename, chmod), path (relative to the watched directory), time}], dropped, lastSeq}: "+
			"the buffer keeps the newest bufferSize events and counts the dropped ones; since returns only events after that seq, clear empties the buffer of what was returned; "+
			"stop {id}; list → the watchers (active false, with a note, once the watched directory was removed or moved). Watchers live in the worker and close with it. An editor's atomic save shows as create or rename, not write.", true,
			schema.Object(
				schema.String("action", "What to do").Enum("start", "events", "stop", "list").Required(),
				schema.String("path", "Directory to watch (start)"+pathNote),
				schema.String("id", "Watcher id from start (events, stop)"),
				schema.Boolean("recursive", "Watch subdirectories too, including ones created later (start)").Default(false),
				schema.Integer("debounce", "Milliseconds within which repeats of one change to one path count once (start)").Default(defaultDebounce.Milliseconds()).Min(0).Max(60000),
				schema.Integer("bufferSize", "Most events kept (start)").Default(defaultWatchBuffer).Min(1).Max(maxWatchBuffer),
				schema.Integer("since", "Return only events with a seq above this (events)").Min(0),
				schema.Boolean("clear", "Remove the returned events from the buffer (events)").Default(false),
			)).
			WithPhrases("file change events", "inotify", "watch for file changes", "hot reload trigger", "detect modified files", "monitor folder", "directory events", "notify when a file appears", "wait for new file", "tell me whenever anything changes in a folder", "keep an eye on a directory"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("fs_watch and its watchers"); err != nil {
				return nil, err
			}
			switch in.Action {
			case "start":
				return watchStart(s, in.Path, in.Recursive, in.Debounce, in.BufferSize, call.Resources)
			case "list":
				out := []map[string]any{}
				for _, id := range call.Resources.Keys(kindWatch) {
					if wt, ok := tool.Lookup[*watcher](call.Resources, kindWatch, id); ok {
						wt.mu.Lock()
						w := map[string]any{"id": id, "path": wt.dir, "recursive": wt.recursive, "buffered": len(wt.events), "dropped": wt.dropped, "lastSeq": wt.seq, "active": wt.gone == ""}
						if note := wt.goneNote(); note != "" {
							w["note"] = note
						}
						out = append(out, w)
						wt.mu.Unlock()
					}
				}
				return map[string]any{"watchers": out}, nil
			}
			if in.ID == "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"id\": action %s needs the id fs_watch start returned", in.Action)
			}
			wt, ok := tool.Lookup[*watcher](call.Resources, kindWatch, in.ID)
			if !ok {
				return nil, tool.Errorf(tool.CodeNotFound, "no watcher %q; open: %s (a watcher lives in its worker process: one stopped, or ended with its worker, is gone; start another)", in.ID, listOrNone(call.Resources.Keys(kindWatch)))
			}
			if in.Action == "stop" {
				if _, err := call.Resources.Close(kindWatch, in.ID); err != nil {
					return nil, tool.Errorf(tool.CodeToolError, "stop watcher %s: %v", in.ID, err)
				}
				return map[string]any{"id": in.ID, "stopped": true}, nil
			}
			var since uint64
			if in.Since != nil {
				since = *in.Since
			}
			wt.mu.Lock()
			defer wt.mu.Unlock()
			evs := []watchEvent{}
			keep := wt.events[:0:0]
			for _, e := range wt.events {
				if e.Seq > since {
					evs = append(evs, e)
				} else {
					keep = append(keep, e)
				}
			}
			if in.Clear {
				wt.events = keep
			}
			out := map[string]any{"id": wt.id, "events": evs, "dropped": wt.dropped, "lastSeq": wt.seq}
			if len(wt.errors) > 0 {
				out["errors"] = wt.errors
			}
			if note := wt.goneNote(); note != "" {
				out["active"], out["note"] = false, note
			}
			return out, nil
		}),
	}
}

func watchStart(s *sandbox, p string, recursive bool, debounce *int, buffer int, res *tool.Resources) (any, error) {
	pl, err := s.resolve("path", p)
	if err != nil {
		return nil, err
	}
	fi, err := pl.root.Stat(pl.rel)
	if err != nil {
		return nil, s.fail("fs_watch", pl, err)
	}
	if !fi.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_watch %s: is not a directory; watch the directory that holds it", pl.abs)
	}
	// fsnotify takes names, not handles: watch the directory's real path,
	// which os.Root has just confirmed lies inside the root.
	dir, err := filepath.EvalSymlinks(pl.abs)
	if err != nil || !fspath.Within(dir, pl.rootDir) {
		return nil, tool.Errorf(tool.CodeForbidden, "fs_watch %s: leads outside the root %s through a symbolic link", pl.abs, pl.rootDir)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "fs_watch: start a watcher: %v", err)
	}
	wt := &watcher{id: "watch-" + strings.ToLower(rand.Text()[:8]), dir: dir, recursive: recursive, w: fw, done: make(chan struct{}), limit: buffer, debounce: defaultDebounce}
	if debounce != nil {
		wt.debounce = time.Duration(*debounce) * time.Millisecond
	}
	if wt.limit <= 0 {
		wt.limit = defaultWatchBuffer
	}
	go wt.loop()
	if err := wt.addTree(dir); err != nil {
		_ = wt.Close()
		return nil, tool.Errorf(tool.CodeToolError, "fs_watch %s: %v (on Linux, raise fs.inotify.max_user_watches for large trees)", pl.abs, err)
	}
	res.Put(kindWatch, wt.id, wt, wt.Close)
	return map[string]any{"id": wt.id, "path": dir, "recursive": recursive}, nil
}

// listOrNone formats open ids for messages.
func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return fmt.Sprint(strings.Join(ids, ", "))
}
