package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the screencast's frames: their size
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Video recording: the tab's screencast (Page.startScreencast, each frame
// acknowledged with Page.screencastFrameAck) is kept as JPEG files in a
// temporary directory, each with the time the browser drew it; stopping
// encodes them with ffmpeg into a WebM (VP8) in which each frame is held
// until the next one's time, so the video plays at the speed the page
// changed (a screencast sends a frame only when the page changes), with
// the chapters marked as WebM chapters. Only the frames' times are held in
// memory, and ffmpeg runs only while the file is made.

// Video defaults and bounds.
const (
	// DefaultVideoFPS is the most frames kept per second when not said.
	DefaultVideoFPS = 25
	// MaxVideoFPS bounds the frames kept per second.
	MaxVideoFPS = 60
	// defaultVideoBox is the box the frames are scaled to fit when no size
	// is given (as Playwright's videos: the viewport within 800×800).
	defaultVideoBox = 800
	// maxVideoFrameBytes bounds the frames kept on disk for one recording;
	// later frames are dropped, and the result says so.
	maxVideoFrameBytes = 2 << 30
	// videoFinishBound bounds the encoding of a recording that ends with
	// its tab or browser instead of by browser_stop_video.
	videoFinishBound = 2 * time.Minute
	// videoTempPrefix starts the name of a recording's temporary directory,
	// followed by the process id (see sweepVideoDirs).
	videoTempPrefix = "barrhawk-video-"
)

// FFmpegInstallHint says how to get ffmpeg.
const FFmpegInstallHint = "install it with `apt-get install ffmpeg` (Debian, Ubuntu), `dnf install ffmpeg` (Fedora) or `brew install ffmpeg` (macOS), so that ffmpeg is on PATH"

// VideoOptions say how a recording is made.
type VideoOptions struct {
	// Path is where the WebM is written: an absolute path the caller
	// resolved inside the allowed roots.
	Path string
	// Width and Height are the video's size; the frames are scaled to fit
	// and centred. 0: the first frame's size (the viewport, scaled to fit
	// 800×800). Odd sizes are rounded down to even (VP8 wants them so).
	Width, Height int
	// FPS is the video's frame rate (default DefaultVideoFPS): a frame
	// drawn sooner after the one before replaces it, and a frame is
	// repeated until the page draws the next, as a camera would.
	FPS int
	// Cursor draws a mouse pointer on the page where each mouse action
	// happens (a click, a hover, a move), so the video shows it.
	Cursor bool
}

// Chapter is a named point of a recording: it starts at StartMs and ends
// where the next one starts, or with the video.
type Chapter struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	StartMs     int64  `json:"startMs"`
	EndMs       int64  `json:"endMs,omitempty"`
}

// VideoResult describes a finished recording.
type VideoResult struct {
	Path       string    `json:"path"`
	Frames     int       `json:"frames"`
	DurationMs int64     `json:"durationMs"`
	Chapters   []Chapter `json:"chapters"`
	Width      int       `json:"width"`
	Height     int       `json:"height"`
	Bytes      int64     `json:"bytes"`
	Note       string    `json:"note,omitempty"`
}

// recording is a video being recorded of one tab.
type recording struct {
	page  *Page
	opts  VideoOptions
	dir   string
	start time.Time
	// ctx is the tab's context for the recording's commands (acks),
	// cancelled when it ends, which also ends its listener.
	ctx    context.Context
	cancel context.CancelFunc
	// stopOnClose undoes the hook that finishes the recording when its
	// tab closes.
	stopOnClose func() bool
	queue       chan *page.EventScreencastFrame
	quit        chan struct{}
	written     chan struct{}

	mu       sync.Mutex
	frames   []videoFrame
	chapters []Chapter
	size     int64
	dropped  int
	firstW   int
	firstH   int
	writeErr error
	// closedBy says why the recording ended without browser_stop_video.
	closedBy string

	once sync.Once
	done chan struct{}
	res  *VideoResult
	err  error
}

// videoFrame is one kept frame: its file and when it was drawn, from the
// start of the recording.
type videoFrame struct {
	file string
	at   time.Duration
}

// FFmpeg finds ffmpeg on PATH, or says how to install it.
func FFmpeg() (string, error) {
	path, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", tool.Errorf(tool.CodeToolError, "video recording needs ffmpeg, which is not on PATH (%s): %s", os.Getenv("PATH"), FFmpegInstallHint)
	}
	return path, nil
}

// StartVideo starts recording tab p (of b) into o.Path. One recording runs
// at a time per browser; it ends with StopVideo, or when its tab or the
// browser closes (the file is then written all the same).
func (b *Browser) StartVideo(ctx context.Context, p *Page, o VideoOptions) error {
	if _, err := FFmpeg(); err != nil {
		return err
	}
	if o.FPS <= 0 {
		o.FPS = DefaultVideoFPS
	}
	o.FPS = min(o.FPS, MaxVideoFPS)
	o.Width, o.Height = o.Width&^1, o.Height&^1
	if err := p.usable(); err != nil {
		return err
	}
	b.mu.Lock()
	if old := b.video; old != nil && !old.ended() {
		b.mu.Unlock()
		return tool.Errorf(tool.CodeInvalidArgs, "a video is being recorded already (to %s, for %s): stop it with browser_stop_video before starting another", old.opts.Path, time.Since(old.start).Round(time.Second))
	}
	b.mu.Unlock()
	sweepVideoDirs()
	dir, err := os.MkdirTemp("", videoTempPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return tool.Errorf(tool.CodeToolError, "video: create a temporary directory for the frames: %v", err)
	}
	rctx, cancel := context.WithCancel(p.ctx)
	r := &recording{page: p, opts: o, dir: dir, ctx: rctx, cancel: cancel,
		queue: make(chan *page.EventScreencastFrame, 16), quit: make(chan struct{}), written: make(chan struct{}), done: make(chan struct{})}
	if err := chromedp.Listen(rctx, r.onEvent); err != nil {
		r.discard()
		return tool.Errorf(tool.CodeToolError, "video: listen to the tab: %v", err)
	}
	go r.write()
	box := int64(defaultVideoBox)
	params := page.StartScreencastParams{Format: page.StartScreencastFormatJpeg, Quality: new(int64(85)), MaxWidth: box, MaxHeight: box, EveryNthFrame: 1}
	if o.Width > 0 && o.Height > 0 {
		params.MaxWidth, params.MaxHeight = int64(o.Width), int64(o.Height)
	}
	r.start = time.Now()
	err = p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// A tab behind another draws nothing, so the screencast would
		// send nothing: the tab recorded comes to the front.
		if _, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, page.StartScreencast, params)
		return err
	}))
	if err != nil {
		r.discard()
		return describe("video: start the tab's screencast", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if old := b.video; old != nil && !old.ended() { // another call won the race
		go r.discard()
		return tool.Errorf(tool.CodeInvalidArgs, "a video is being recorded already (to %s): stop it with browser_stop_video before starting another", old.opts.Path)
	}
	b.video = r
	p.cursor.Store(o.Cursor)
	r.stopOnClose = context.AfterFunc(p.ctx, func() { r.endBecause("its tab closed") })
	return nil
}

// VideoChapter marks a chapter starting now in the running recording, and
// shows its card (the title and description over the blurred page) in the
// recorded tab for show, returning when the card is gone (show 0: no
// card); it returns the chapter.
func (b *Browser) VideoChapter(ctx context.Context, title, description string, show time.Duration) (Chapter, error) {
	r, err := b.runningVideo()
	if err != nil {
		return Chapter{}, err
	}
	r.mu.Lock()
	c := Chapter{Title: title, Description: description, StartMs: time.Since(r.start).Milliseconds()}
	r.chapters = append(r.chapters, c)
	r.mu.Unlock()
	if show <= 0 {
		return c, nil
	}
	arg, _ := json.Marshal(map[string]any{"title": title, "description": description, "ms": show.Milliseconds()})
	if _, err := r.page.Evaluate(ctx, chapterCardJS, arg); err != nil {
		return c, describe("video: show the chapter card", err)
	}
	return c, nil
}

// chapterCardJS shows a chapter's card over the whole page for a.ms
// milliseconds (the page cannot click through it meanwhile), resolving
// once it is gone.
const chapterCardJS = `(a) => new Promise((done) => {
  const card = document.createElement('div');
  card.id = '__barrhawk_chapter';
  card.setAttribute('style', 'position:fixed;inset:0;z-index:2147483647;display:flex;flex-direction:column;align-items:center;justify-content:center;' +
    'background:rgba(20,20,30,.55);backdrop-filter:blur(8px);color:#fff;font:600 40px system-ui,sans-serif;text-align:center;padding:40px;box-sizing:border-box');
  const h = document.createElement('div'); h.textContent = a.title; card.append(h);
  if (a.description) { const d = document.createElement('div'); d.textContent = a.description; d.style.font = '400 22px system-ui,sans-serif'; d.style.marginTop = '16px'; card.append(d); }
  (document.body || document.documentElement).append(card);
  setTimeout(() => { card.remove(); done(true); }, a.ms);
})`

// cursorJS draws the recording's mouse pointer at (x, y): an arrow the
// page's hit testing passes through.
const cursorJS = `(a) => {
  let c = document.getElementById('__barrhawk_cursor');
  if (!c) {
    c = document.createElement('div');
    c.id = '__barrhawk_cursor';
    c.innerHTML = '<svg width="20" height="28" viewBox="0 0 20 28"><path d="M1 1 L1 22 L6 17 L10 26 L13 25 L9 16 L16 16 Z" fill="#000" stroke="#fff" stroke-width="1.5"/></svg>';
    c.setAttribute('style', 'position:fixed;z-index:2147483647;pointer-events:none;width:20px;height:28px');
    (document.body || document.documentElement).append(c);
  }
  c.style.left = a.x + 'px';
  c.style.top = a.y + 'px';
}`

// drawCursor draws the recording's pointer at (x, y) when the tab is
// recorded with a cursor; a page that cannot draw it is acted on all the
// same.
func (p *Page) drawCursor(ctx context.Context, x, y float64) {
	if !p.cursor.Load() {
		return
	}
	arg, _ := json.Marshal(map[string]float64{"x": x, "y": y})
	p.Evaluate(ctx, cursorJS, arg) //nolint:errcheck // the pointer is a picture; the action is what counts
}

// runningVideo is the recording running now, or an error saying there is
// none.
func (b *Browser) runningVideo() (*recording, error) {
	b.mu.Lock()
	r := b.video
	b.mu.Unlock()
	if r == nil {
		return nil, noVideo()
	}
	if r.ended() {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "the video recording to %s ended when %s; call browser_stop_video for its file, then browser_start_video to record again", r.opts.Path, r.closedReason())
	}
	return r, nil
}

func noVideo() error {
	return tool.Errorf(tool.CodeInvalidArgs, "no video is being recorded: start one with browser_start_video {filename: \"name.webm\"} first")
}

// StopVideo stops the recording and writes its file. A recording that
// ended with its tab is reported here too, with a note.
func (b *Browser) StopVideo(ctx context.Context) (*VideoResult, error) {
	b.mu.Lock()
	r := b.video
	b.video = nil
	b.mu.Unlock()
	if r == nil {
		return nil, noVideo()
	}
	return r.finish(ctx)
}

// endVideo finishes the recording running when the browser closes (Close
// calls it while the browser still runs): its file is written, and
// nothing of it (ffmpeg, the frames) is left.
func (b *Browser) endVideo() {
	b.mu.Lock()
	r := b.video
	b.mu.Unlock()
	if r != nil {
		r.endBecause("the browser closed")
	}
}

// endBecause finishes the recording that was not stopped by
// browser_stop_video, saying why (its error is kept for a later
// browser_stop_video to report).
func (r *recording) endBecause(why string) {
	r.mu.Lock()
	if r.closedBy == "" {
		r.closedBy = why
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), videoFinishBound)
	defer cancel()
	r.finish(ctx) //nolint:errcheck // kept for browser_stop_video to report
}

// ended says the recording has stopped (by a stop, or with its tab).
func (r *recording) ended() bool {
	select {
	case <-r.done:
		return true
	default:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closedBy != ""
}

func (r *recording) closedReason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closedBy
}

// onEvent runs in the tab's event loop: it hands frames to write.
func (r *recording) onEvent(ev any) {
	f, ok := ev.(*page.EventScreencastFrame)
	if !ok {
		return
	}
	select {
	case r.queue <- f:
	default: // more than the browser sends unacknowledged: drop, but ack
		r.mu.Lock()
		r.dropped++
		r.mu.Unlock()
		go r.ack(f.SessionID)
	}
}

// ack tells the browser the frame arrived, so that it sends the next one.
func (r *recording) ack(session int64) {
	_, _ = chromedp.Call(r.ctx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: session}) // the tab is gone: no more frames either
}

// write keeps the frames as they come, until quit; then it drains the
// queue and closes written.
func (r *recording) write() {
	defer close(r.written)
	for {
		select {
		case f := <-r.queue:
			r.keep(f)
			r.ack(f.SessionID)
		case <-r.quit:
			for {
				select {
				case f := <-r.queue:
					r.keep(f)
				default:
					return
				}
			}
		}
	}
}

// keep writes a frame to the directory. A frame drawn less than a frame
// interval (1/FPS) after the one before replaces it; the first frame
// shows from the start of the recording.
func (r *recording) keep(f *page.EventScreencastFrame) {
	drawn := time.Now()
	if f.Metadata != nil && f.Metadata.Timestamp > 0 {
		drawn = time.UnixMicro(int64(f.Metadata.Timestamp.Float64() * 1e6))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writeErr != nil {
		return
	}
	if r.size+int64(len(f.Data)) > maxVideoFrameBytes {
		r.dropped++
		return
	}
	at := max(drawn.Sub(r.start), 0)
	n := len(r.frames)
	switch {
	case n == 0:
		at = 0
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(f.Data)); err == nil {
			r.firstW, r.firstH = cfg.Width, cfg.Height
		}
	case at < r.frames[n-1].at:
		at = r.frames[n-1].at // clocks disagree by a hair: keep the order
	}
	name := fmt.Sprintf("%07d.jpg", n)
	replace := n > 0 && at-r.frames[n-1].at < time.Second/time.Duration(r.opts.FPS)
	if replace {
		name = r.frames[n-1].file
	}
	if err := os.WriteFile(filepath.Join(r.dir, name), f.Data, 0o600); err != nil {
		r.writeErr = fmt.Errorf("write a frame to %s: %w", r.dir, err)
		return
	}
	r.size += int64(len(f.Data))
	if !replace {
		r.frames = append(r.frames, videoFrame{file: name, at: at})
	}
}

// finish ends the recording once, whoever asks first (browser_stop_video,
// its tab closing, the browser closing), and gives everyone its result.
func (r *recording) finish(ctx context.Context) (*VideoResult, error) {
	r.once.Do(func() {
		defer close(r.done)
		r.res, r.err = r.encode(ctx)
	})
	<-r.done
	return r.res, r.err
}

// discard ends a recording that never started, leaving nothing.
func (r *recording) discard() {
	r.once.Do(func() {
		defer close(r.done)
		close(r.quit)
		r.cancel()
		<-r.written
		r.err = errors.New("the recording did not start")
		_ = os.RemoveAll(r.dir) // a temporary directory of ours
	})
}

// encode stops the screencast, makes the WebM from the frames and moves it
// to its path; the frames are removed whatever happens.
func (r *recording) encode(ctx context.Context) (*VideoResult, error) {
	defer os.RemoveAll(r.dir) //nolint:errcheck // a temporary directory of ours
	if r.stopOnClose != nil {
		r.stopOnClose()
	}
	if r.page.ctx.Err() == nil {
		sctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
		_, _ = chromedp.Call(sctx, page.StopScreencast, cdp.Empty{}) // frames after this are not kept anyway
		cancel()
	}
	end := time.Since(r.start)
	r.page.cursor.Store(false)
	close(r.quit)
	<-r.written
	r.mu.Lock()
	none := len(r.frames) == 0
	r.mu.Unlock()
	if none && r.page.ctx.Err() == nil {
		// A page that never changed sends no frame: it looked as now.
		sctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		shot, err := chromedp.Call(sctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: new(int64(85))})
		cancel()
		if err == nil {
			r.keep(&page.EventScreencastFrame{Data: shot.Data})
		}
	}
	r.cancel()

	r.mu.Lock()
	frames, chapters, werr, dropped, closedBy := r.frames, r.chapters, r.writeErr, r.dropped, r.closedBy
	w, h := r.opts.Width, r.opts.Height
	if w <= 0 || h <= 0 {
		w, h = r.firstW&^1, r.firstH&^1
	}
	r.mu.Unlock()
	if werr != nil {
		return nil, tool.Errorf(tool.CodeToolError, "video %s: %v", r.opts.Path, werr)
	}
	if len(frames) == 0 {
		return nil, tool.Errorf(tool.CodeToolError, "video %s: the browser sent no frame of the tab (was it closed, or hidden?); nothing was written", r.opts.Path)
	}
	if w <= 0 || h <= 0 {
		w, h = defaultVideoBox, defaultVideoBox*9/16
	}
	chapters = closeChapters(chapters, end)
	if err := os.WriteFile(filepath.Join(r.dir, "frames.txt"), concatList(frames, end), 0o600); err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "video: write the frame list: %v", err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "chapters.txt"), ffMetadata(chapters), 0o600); err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "video: write the chapters: %v", err)
	}
	out := filepath.Join(r.dir, "video.webm")
	if err := runFFmpeg(ctx, r.dir, w, h, r.opts.FPS, out); err != nil {
		return nil, err
	}
	n, err := moveFile(out, r.opts.Path)
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "video: write %s: %v", r.opts.Path, err)
	}
	res := &VideoResult{Path: r.opts.Path, Frames: len(frames), DurationMs: end.Milliseconds(), Chapters: chapters, Width: w, Height: h, Bytes: n}
	var notes []string
	if closedBy != "" {
		notes = append(notes, "the recording stopped when "+closedBy)
	}
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d frames were dropped (more than %d GiB of frames, or the page drew faster than they could be kept)", dropped, maxVideoFrameBytes>>30))
	}
	res.Note = strings.Join(notes, "; ")
	return res, nil
}

// closeChapters gives each chapter its end: the next one's start, or the
// end of the video.
func closeChapters(cs []Chapter, end time.Duration) []Chapter {
	out := make([]Chapter, len(cs))
	copy(out, cs)
	for i := range out {
		out[i].EndMs = end.Milliseconds()
		if i+1 < len(out) {
			out[i].EndMs = out[i+1].StartMs
		}
		out[i].EndMs = max(out[i].EndMs, out[i].StartMs)
	}
	return out
}

// concatList is the frames as an input of ffmpeg's concat demuxer: each
// image read at a 1 ms time base (not the image demuxer's 1/25 s, which
// would round the times) and held until the next one's time; the last
// until the end, and listed again, as the demuxer ends the video at the
// start of its last entry.
func concatList(frames []videoFrame, end time.Duration) []byte {
	var b bytes.Buffer
	b.WriteString("ffconcat version 1.0\n")
	for i, f := range frames {
		next := end
		if i+1 < len(frames) {
			next = frames[i+1].at
		}
		d := max(next-f.at, time.Millisecond)
		fmt.Fprintf(&b, "file '%s'\noption framerate 1000\nduration %.3f\n", f.file, d.Seconds())
	}
	fmt.Fprintf(&b, "file '%s'\noption framerate 1000\n", frames[len(frames)-1].file)
	return b.Bytes()
}

// ffMetadata is the chapters in ffmpeg's FFMETADATA format, times in ms.
func ffMetadata(cs []Chapter) []byte {
	var b bytes.Buffer
	b.WriteString(";FFMETADATA1\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "[CHAPTER]\nTIMEBASE=1/1000\nSTART=%d\nEND=%d\ntitle=%s\n", c.StartMs, c.EndMs, ffEscape(c.Title))
		if c.Description != "" {
			fmt.Fprintf(&b, "description=%s\n", ffEscape(c.Description))
		}
	}
	return b.Bytes()
}

// ffEscape escapes what FFMETADATA gives a meaning to: = ; # \ and line
// breaks.
func ffEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '=', ';', '#', '\\', '\n':
			b.WriteByte('\\')
		case '\r':
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// runFFmpeg encodes dir's frames.txt with its chapters.txt into out: VP8,
// w×h, each frame scaled to fit and centred, at fps frames a second (each
// frame shown from its own time until the next one's).
// The process runs in its own group, tied to this one, and is killed when
// ctx ends.
func runFFmpeg(ctx context.Context, dir string, w, h, fps int, out string) error {
	bin, err := FFmpeg()
	if err != nil {
		return err
	}
	vf := fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,format=yuv420p", w, h, w, h)
	cmd := exec.Command(bin, "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "concat", "-safe", "0", "-i", "frames.txt",
		"-f", "ffmetadata", "-i", "chapters.txt",
		"-map", "0:v", "-map_metadata", "1", "-map_chapters", "1",
		"-vf", vf, "-fps_mode", "cfr", "-r", strconv.Itoa(fps),
		"-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-qmin", "0", "-qmax", "50", "-crf", "8", "-b:v", "2M",
		"-an", "-f", "webm", out)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pr, err := proc.StartTied(cmd)
	if err != nil {
		return tool.Errorf(tool.CodeToolError, "video: start ffmpeg: %v", err)
	}
	select {
	case <-pr.Done():
	case <-ctx.Done():
		pr.Stop(time.Second)
		return tool.Errorf(tool.CodeTimeout, "video: ffmpeg was stopped before it finished the file: %v", ctx.Err())
	}
	if pr.ExitCode() != 0 {
		return tool.Errorf(tool.CodeToolError, "video: ffmpeg failed (%s): %s", pr.ExitStatus(), tool.Shorten(strings.TrimSpace(stderr.String()), 2000))
	}
	return nil
}

// moveFile moves src to dst, copying when they are on different file
// systems; it returns the file's size.
func moveFile(src, dst string) (int64, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return 0, err
	}
	if err := os.Rename(src, dst); err == nil {
		return fi.Size(), nil
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".barrhawk-*")
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // the copy failed; dst is untouched
		return 0, err
	}
	return n, nil
}

// sweepVideoDirs removes the temporary directories of recordings whose
// process is gone (an Igor killed while recording).
func sweepVideoDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), videoTempPrefix+"*"))
	for _, d := range dirs {
		pid, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), videoTempPrefix), "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && n != os.Getpid() && !proc.Exists(n) {
			_ = os.RemoveAll(d) // best effort: another sweep tries again
		}
	}
}
