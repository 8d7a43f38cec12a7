package browser

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// animated is a page that changes on every animation frame: a counter and
// a moving box, so that the screencast sends frames all along.
const animated = `<!doctype html><html><head><title>Animated</title><style>
body { margin: 0; background: #fff; font: 32px sans-serif; }
#box { position: absolute; top: 80px; width: 60px; height: 60px; background: #c33; }
</style></head><body><p id="n">0</p><div id="box"></div><script>
let n = 0;
function tick(t) {
  n++;
  document.getElementById('n').textContent = String(n);
  document.getElementById('box').style.left = ((t / 4) % 600) + 'px';
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
</script></body></html>`

// AnimatedServer serves the animated page at /.
func animatedServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, animated)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// probe reads a video with ffprobe; it must be a WebM.
func probe(t *testing.T, path string) testbin.Video {
	t.Helper()
	v := testbin.ProbeVideo(t, path)
	if !strings.Contains(v.Format, "webm") {
		t.Errorf("%s is %s, want webm", path, v.Format)
	}
	return v
}

// videoBrowser launches a browser for a video test.
func videoBrowser(t *testing.T) (context.Context, *Browser, *Page) {
	t.Helper()
	testbin.NeedFFmpeg(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	b, err := Launch(ctx, Options{Headless: true})
	if err != nil {
		t.Fatalf("launch Chromium (scripts/test installs it: apt-get install chromium): %v", err)
	}
	t.Cleanup(func() { b.Close() })
	p, err := b.Active()
	if err != nil {
		t.Fatal(err)
	}
	return ctx, b, p
}

// ffmpegChildren lists this process's ffmpeg children.
func ffmpegChildren() []int {
	var pids []int
	for _, c := range proc.Children(os.Getpid()) {
		if strings.Contains(c.Comm, "ffmpeg") {
			pids = append(pids, c.PID)
		}
	}
	return pids
}

func TestVideoRecordsTheTab(t *testing.T) {
	ctx, b, p := videoBrowser(t)
	srv := animatedServer(t)
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tab.webm")
	if err := b.StartVideo(ctx, p, VideoOptions{Path: path, Width: 641, Height: 360}); err != nil {
		t.Fatal(err)
	}
	if err := b.StartVideo(ctx, p, VideoOptions{Path: path}); err == nil || !strings.Contains(err.Error(), "being recorded already") {
		t.Errorf("start twice: %v", err)
	}
	time.Sleep(700 * time.Millisecond)
	if _, err := b.VideoChapter(ctx, "Second; part = #2", "", 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond)
	res, err := b.StopVideo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.Frames < 10 || res.Width != 640 || res.Height != 360 || res.DurationMs < 1400 || res.DurationMs > 3000 {
		t.Errorf("result: %+v", res)
	}
	got := probe(t, path)
	t.Logf("ffprobe: %+v", got)
	if got.Codec != "vp8" || got.Frames < 10 || got.Width != 640 || got.Height != 360 {
		t.Errorf("ffprobe: %+v", got)
	}
	if d := got.Duration * 1000; d < float64(res.DurationMs)-150 || d > float64(res.DurationMs)+150 {
		t.Errorf("the video lasts %.3fs, the recording %dms", got.Duration, res.DurationMs)
	}
	if len(got.Chapters) != 1 || got.Chapters[0] != "Second; part = #2" || got.Starts[0] < 0.6 || got.Starts[0] > 1.2 {
		t.Errorf("chapters: %v at %v", got.Chapters, got.Starts)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Error(err)
	}
	if _, err := b.StopVideo(ctx); err == nil || !strings.Contains(err.Error(), "no video is being recorded") {
		t.Errorf("stop twice: %v", err)
	}
}

func TestVideoFinishedWhenTheBrowserCloses(t *testing.T) {
	ctx, b, p := videoBrowser(t)
	srv := animatedServer(t)
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "closed.webm")
	if err := b.StartVideo(ctx, p, VideoOptions{Path: path}); err != nil {
		t.Fatal(err)
	}
	r := b.video
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(r.dir); err != nil {
		t.Fatalf("the frames' directory: %v", err)
	}
	b.Close()
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Errorf("the frames' directory %s is left after the browser closed: %v", r.dir, err)
	}
	if pids := ffmpegChildren(); len(pids) > 0 {
		t.Errorf("ffmpeg processes left: %v", pids)
	}
	if got := probe(t, path); got.Codec != "vp8" || got.Frames < 2 {
		t.Errorf("the video finished at close: %+v", got)
	}
	res, err := r.finish(context.Background())
	if err != nil || !strings.Contains(res.Note, "the browser closed") {
		t.Errorf("the recording's own result: %+v %v", res, err)
	}
}

func TestVideoFinishedWhenItsTabCloses(t *testing.T) {
	ctx, b, p := videoBrowser(t)
	srv := animatedServer(t)
	tab, i, err := b.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tab.webm")
	if err := b.StartVideo(ctx, tab, VideoOptions{Path: path}); err != nil {
		t.Fatal(err)
	}
	r := b.video
	time.Sleep(400 * time.Millisecond)
	if err := b.CloseTab(i); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the recording did not end with its tab")
	}
	if _, err := b.VideoChapter(ctx, "late", "", 0); err == nil || !strings.Contains(err.Error(), "its tab closed") {
		t.Errorf("a chapter after the tab closed: %v", err)
	}
	res, err := b.StopVideo(ctx)
	if err != nil || res.Path != path || !strings.Contains(res.Note, "its tab closed") {
		t.Fatalf("stop after the tab closed: %+v %v", res, err)
	}
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Errorf("the frames' directory is left: %v", err)
	}
	if pids := ffmpegChildren(); len(pids) > 0 {
		t.Errorf("ffmpeg processes left: %v", pids)
	}
	// A new recording may start now.
	if err := b.StartVideo(ctx, p, VideoOptions{Path: filepath.Join(t.TempDir(), "again.webm")}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.StopVideo(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestVideoWithoutFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := FFmpeg(); err == nil || !strings.Contains(err.Error(), "apt-get install ffmpeg") {
		t.Fatalf("without ffmpeg: %v", err)
	}
}

func TestConcatListAndChapters(t *testing.T) {
	frames := []videoFrame{{"0.jpg", 0}, {"1.jpg", 500 * time.Millisecond}, {"2.jpg", 540 * time.Millisecond}}
	got := string(concatList(frames, 2*time.Second))
	want := "ffconcat version 1.0\nfile '0.jpg'\noption framerate 1000\nduration 0.500\nfile '1.jpg'\noption framerate 1000\nduration 0.040\nfile '2.jpg'\noption framerate 1000\nduration 1.460\nfile '2.jpg'\noption framerate 1000\n"
	if got != want {
		t.Errorf("concat list:\n%s\nwant\n%s", got, want)
	}
	cs := closeChapters([]Chapter{{Title: "a=b", StartMs: 0}, {Title: "c;d#e\\f\ng", StartMs: 900}}, 2*time.Second)
	meta := string(ffMetadata(cs))
	if !strings.Contains(meta, "START=0\nEND=900\ntitle=a\\=b\n") || !strings.Contains(meta, "START=900\nEND=2000\ntitle=c\\;d\\#e\\\\f\\\ng\n") {
		t.Errorf("metadata:\n%s", meta)
	}
}
