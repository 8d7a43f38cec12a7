package dynamic

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long Watch waits for more events before it reports
// a change.
const DefaultDebounce = 50 * time.Millisecond

// DefaultPollInterval is how often a Watcher looks for its directory to
// come back after it was removed or renamed away.
const DefaultPollInterval = 250 * time.Millisecond

// maxWaitFactor bounds debouncing: a stream of events that never pauses is
// still reported every maxWaitFactor × Debounce.
const maxWaitFactor = 10

// Watcher reports changes to the tool files of a directory (see IsToolFile;
// not recursive). Every kind of event counts as a change: create, write,
// remove, rename and chmod, since an editor's atomic save arrives as a
// create (the rename of its temporary file) or even a chmod only. Events are
// coalesced: OnChange is called once the directory has been quiet for
// Debounce, with the sorted distinct tool names (base names without
// extension) that changed. A name is reported whether the file appeared,
// changed or vanished: the receiver looks at the directory to find out which.
//
// If the directory is removed or renamed away, the Watcher reports the tool
// files it held (the removals arrive as events), then polls every
// PollInterval until a directory of that path exists again, watches it, and
// reports every tool file it then holds.
type Watcher struct {
	// Dir is the directory to watch; it must exist when Run starts.
	Dir string
	// Debounce is the quiet time before a change is reported; zero or less
	// means DefaultDebounce.
	Debounce time.Duration
	// OnChange receives the changed tool names, sorted and distinct. It is
	// called from Run's goroutine, one call at a time; events that arrive
	// meanwhile are kept for the next call.
	OnChange func(changed []string)
	// OnReady, if set, is called each time the directory is being watched:
	// once at start, and again after the directory came back. Files changed
	// before that are not reported by events (but see the rescan above).
	OnReady func()
	// OnError, if set, receives errors that do not stop the Watcher, such as
	// a queue overflow of the kernel (after which every tool file present is
	// reported as changed).
	OnError func(error)
	// PollInterval is how often to look for a removed directory; zero or
	// less means DefaultPollInterval.
	PollInterval time.Duration
}

// Watch watches dir until ctx ends, calling onChange with the tool names
// that changed, debounced by debounce (zero means DefaultDebounce). It is
// Run of a Watcher with those fields; it returns nil when ctx ends and an
// error only when the directory cannot be watched at all.
func Watch(ctx context.Context, dir string, debounce time.Duration, onChange func(changed []string)) error {
	w := &Watcher{Dir: dir, Debounce: debounce, OnChange: onChange}
	return w.Run(ctx)
}

// Run watches until ctx ends, then returns nil; changes still waiting for
// their debounce are dropped. It returns an error at once if Dir cannot be
// watched (it does not exist, or inotify is out of watches), and later only
// if fsnotify stops.
func (w *Watcher) Run(ctx context.Context) error {
	dir := filepath.Clean(w.Dir)
	debounce := w.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	poll := w.PollInterval
	if poll <= 0 {
		poll = DefaultPollInterval
	}

	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch dynamic tools: %w", err)
	}
	defer fw.Close()
	if err := fw.Add(dir); err != nil {
		return fmt.Errorf("watch dynamic tools dir %s: %w", dir, err)
	}
	w.ready()

	pending := make(map[string]struct{})
	var first time.Time // when the oldest pending change arrived
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var pollC <-chan time.Time
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()

	mark := func(names ...string) {
		if len(names) == 0 {
			return
		}
		now := time.Now()
		if len(pending) == 0 {
			first = now
		}
		for _, n := range names {
			pending[n] = struct{}{}
		}
		wait := debounce
		if left := first.Add(maxWaitFactor * debounce).Sub(now); left < wait {
			wait = max(left, 0)
		}
		timer.Reset(wait)
	}
	// scan lists the tool names now in dir.
	scan := func() []string {
		files, err := listToolFiles(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				w.report(fmt.Errorf("watch dynamic tools dir %s: rescan: %w", dir, err))
			}
			return nil
		}
		names := make([]string, 0, len(files))
		for _, f := range files {
			names = append(names, f.Name)
		}
		return names
	}
	// known is the tool names in dir at the last look: reported when the
	// directory is renamed away, which sends no event for its files.
	known := scan()

	for {
		select {
		case <-ctx.Done():
			return nil

		case ev, ok := <-fw.Events:
			if !ok {
				return fmt.Errorf("watch dynamic tools dir %s: fsnotify stopped", dir)
			}
			if filepath.Clean(ev.Name) == dir {
				if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
					// The directory itself went away; its watch is gone.
					_ = fw.Remove(dir)
					mark(known...)
					if ticker == nil {
						ticker = time.NewTicker(poll)
						pollC = ticker.C
					}
				}
				continue
			}
			if filepath.Dir(ev.Name) != dir || ev.Op == 0 {
				continue
			}
			if base := filepath.Base(ev.Name); IsToolFile(base) {
				mark(toolBase(base))
			}

		case err, ok := <-fw.Errors:
			if !ok {
				return fmt.Errorf("watch dynamic tools dir %s: fsnotify stopped", dir)
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.report(fmt.Errorf("watch dynamic tools dir %s: events lost, rescanning: %w", dir, err))
				mark(known...)
				mark(scan()...)
				continue
			}
			w.report(fmt.Errorf("watch dynamic tools dir %s: %w", dir, err))

		case <-pollC:
			info, err := os.Stat(dir)
			if err != nil || !info.IsDir() {
				continue
			}
			if err := fw.Add(dir); err != nil {
				w.report(fmt.Errorf("watch dynamic tools dir %s: re-add after it came back: %w", dir, err))
				continue
			}
			ticker.Stop()
			ticker, pollC = nil, nil
			w.ready()
			mark(scan()...)

		case <-timer.C:
			if len(pending) == 0 {
				continue
			}
			names := make([]string, 0, len(pending))
			for n := range pending {
				names = append(names, n)
			}
			slices.Sort(names)
			clear(pending)
			if pollC == nil {
				known = scan()
			}
			if w.OnChange != nil {
				w.OnChange(names)
			}
		}
	}
}

func (w *Watcher) ready() {
	if w.OnReady != nil {
		w.OnReady()
	}
}

func (w *Watcher) report(err error) {
	if w.OnError != nil {
		w.OnError(err)
	}
}
