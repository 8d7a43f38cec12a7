package browser

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// animatedPage changes on every animation frame, and says "step 2" once
// clicked: a flow worth a video.
const animatedPage = `<!doctype html><html><head><title>Animated</title><style>
body { margin: 0; font: 28px sans-serif; }
#box { position: absolute; top: 120px; width: 50px; height: 50px; background: #36c; }
</style></head><body><h1 id="step">step 1</h1><button id="next" onclick="document.getElementById('step').textContent = 'step 2'">Next</button>
<div id="box"></div><script>
function tick(t) { document.getElementById('box').style.left = ((t / 3) % 700) + 'px'; requestAnimationFrame(tick); }
requestAnimationFrame(tick);
</script></body></html>`

func animatedSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, animatedPage)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// needVideoTools fails the test when Chromium or ffmpeg is missing.
func needVideoTools(t *testing.T) {
	t.Helper()
	testbin.NeedFFmpeg(t)
	if _, err := browser.Find(); err != nil {
		t.Fatalf("no Chromium: %v; scripts/test installs it (apt-get install chromium)", err)
	}
}

// leftovers lists what a recording of this process left: ffmpeg
// children and frame directories.
func leftovers() []string {
	var out []string
	for _, c := range proc.Children(os.Getpid()) {
		if strings.Contains(c.Comm, "ffmpeg") {
			out = append(out, fmt.Sprintf("ffmpeg pid %d", c.PID))
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("barrhawk-video-%d-*", os.Getpid())))
	return append(out, dirs...)
}

// videoSession is a tool session for a video test, writing its files
// under root.
func videoSession(t *testing.T) (s *tooltest.Session, root string) {
	needVideoTools(t)
	browsertest.OutputDir(t)
	s = tooltest.NewSession(t, Tools())
	return s, stateRoots(t, s)
}

func TestVideoTools(t *testing.T) {
	srv := animatedSite(t)
	s, root := videoSession(t)

	// Nothing to stop or mark before a start, with or without a browser.
	s.MustFailWith("browser_stop_video", `{}`, tool.CodeInvalidArgs, "no video is being recorded", "browser_start_video")
	s.MustFailWith("browser_video_chapter", `{"title":"x"}`, tool.CodeInvalidArgs, "no video is being recorded")
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustFailWith("browser_stop_video", `{}`, tool.CodeInvalidArgs, "no video is being recorded", "browser_start_video")

	// Bad file names.
	s.MustFailWith("browser_start_video", `{"filename":"flow.mp4"}`, tool.CodeInvalidArgs, `"filename"`, ".webm", "flow.webm")
	s.MustFailWith("browser_start_video", `{"filename":"../outside.webm"}`, tool.CodeForbidden, `"filename"`, "outside the allowed roots")
	s.MustFailWith("browser_start_video", `{"filename":"/etc/flow.webm"}`, tool.CodeForbidden, "outside the allowed roots")
	s.MustFailWith("browser_start_video", `{"size":{"width":8,"height":600}}`, tool.CodeInvalidArgs, "width")

	// A recording: a relative name lands in the root, in a new directory.
	t0 := time.Now()
	got := obj(t, s, "browser_start_video", `{"filename":"videos/flow.webm","size":{"width":801,"height":450}}`)
	want := filepath.Join(root, "videos", "flow.webm")
	if got["recording"] != true || got["path"] != want || tooltest.Marshal(got["size"]) != `{"height":450,"width":800}` || got["fps"] != float64(25) {
		t.Errorf("start: %v", got)
	}
	s.MustFailWith("browser_start_video", `{"filename":"other.webm"}`, tool.CodeInvalidArgs, "being recorded already", "browser_stop_video")
	s.MustRun("browser_video_chapter", `{"title":"Open the page"}`)
	time.Sleep(600 * time.Millisecond)
	c := obj(t, s, "browser_video_chapter", `{"title":"Step two","description":"after Next"}`)
	if ms, _ := c["startMs"].(float64); ms < 500 || ms > 3000 {
		t.Errorf("chapter: %v", c)
	}
	s.MustRun("browser_click", `{"selector":"#next"}`)
	time.Sleep(600 * time.Millisecond)
	res := obj(t, s, "browser_stop_video", `{}`)
	elapsed := time.Since(t0)
	t.Logf("stop: %v", res)
	frames, _ := res["frames"].(float64)
	ms, _ := res["durationMs"].(float64)
	if res["path"] != want || frames < 10 || ms < 1100 || ms > float64(elapsed.Milliseconds()) || res["width"] != float64(800) || res["height"] != float64(450) {
		t.Errorf("stop: %v", res)
	}
	if cs := tooltest.Marshal(res["chapters"]); !strings.Contains(cs, `"title":"Open the page"`) || !strings.Contains(cs, `"title":"Step two"`) {
		t.Errorf("chapters: %s", cs)
	}
	v := testbin.ProbeVideo(t, want)
	t.Logf("ffprobe: %+v", v)
	if !strings.Contains(v.Format, "webm") || (v.Codec != "vp8" && v.Codec != "vp9") || v.Frames < 10 {
		t.Errorf("ffprobe: %+v, want a VP8 or VP9 WebM of at least 10 frames", v)
	}
	if d := v.Duration * 1000; d < ms-200 || d > ms+200 {
		t.Errorf("the video lasts %.3fs, the recording %.0fms", v.Duration, ms)
	}
	if strings.Join(v.Chapters, "|") != "Open the page|Step two" {
		t.Errorf("ffprobe's chapters: %q", v.Chapters)
	}
	s.MustFailWith("browser_stop_video", `{}`, tool.CodeInvalidArgs, "no video is being recorded")
	if l := leftovers(); len(l) > 0 {
		t.Errorf("left after stop: %v", l)
	}

	// The browser closed while recording: the file is finished, nothing
	// is left.
	obj(t, s, "browser_start_video", `{"filename":"closed.webm"}`)
	time.Sleep(400 * time.Millisecond)
	s.MustRun("browser_close", `{}`)
	if l := leftovers(); len(l) > 0 {
		t.Errorf("left after the browser closed: %v", l)
	}
	if v := testbin.ProbeVideo(t, filepath.Join(root, "closed.webm")); v.Codec != "vp8" || v.Frames < 2 {
		t.Errorf("the video of a closed browser: %+v", v)
	}
	s.MustFailWith("browser_stop_video", `{}`, tool.CodeInvalidArgs, "no video is being recorded")
}

func TestStartVideoWithoutFFmpeg(t *testing.T) {
	needVideoTools(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	stateRoots(t, s)
	s.MustRun("browser_launch", `{}`)
	t.Setenv("PATH", t.TempDir())
	s.MustFailWith("browser_start_video", `{"filename":"x.webm"}`, tool.CodeToolError, "ffmpeg", "not on PATH", "apt-get install ffmpeg")
}

// The video has the frame rate asked, its chapters by title, each chapter's
// card drawn over the page for its duration, and the pointer where the
// mouse acted.
func TestVideoFrameRateCursorAndChapterCards(t *testing.T) {
	srv := mockServer(t)
	s, root := videoSession(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	got := obj(t, s, "browser_start_video", `{"filename":"cards.webm","fps":10,"cursor":true}`)
	if got["fps"] != float64(10) || got["cursor"] != true {
		t.Errorf("start: %v", got)
	}
	evalValue(t, s, `{"expression":"window.__added = []; new MutationObserver((ms) => ms.forEach((m) => m.addedNodes.forEach((n) => n.id && window.__added.push(n.id + ':' + n.textContent)))).observe(document.documentElement, {childList: true, subtree: true}); true"}`)
	if c := obj(t, s, "browser_video_chapter", `{"title":"Checkout","description":"pay by card","duration":300}`); c["shownMs"] != float64(300) {
		t.Errorf("chapter: %v", c)
	}
	if got := evalValue(t, s, `{"expression":"[document.getElementById('__barrhawk_chapter') === null, window.__added.join('|')]"}`); tooltest.Marshal(got) != `[true,"__barrhawk_chapter:Checkoutpay by card"]` {
		t.Errorf("the chapter card (gone after its duration, shown before): %v", got)
	}
	s.MustRun("browser_hover", `{"selector":"h1"}`)
	at := evalValue(t, s, `{"expression":"(() => { const c = document.getElementById('__barrhawk_cursor'), r = document.querySelector('h1').getBoundingClientRect(); return c ? Math.abs(parseFloat(c.style.left) - (r.left + r.width / 2)) < 2 && Math.abs(parseFloat(c.style.top) - (r.top + r.height / 2)) < 2 : 'no cursor'; })()"}`)
	if at != true {
		t.Errorf("the pointer is not drawn at the hover's point: %v", at)
	}
	s.MustRun("browser_video_chapter", `{"title":"Done","duration":0}`)
	s.MustRun("browser_stop_video", `{}`)
	v := testbin.ProbeVideo(t, filepath.Join(root, "cards.webm"))
	t.Logf("ffprobe: %+v", v)
	if v.FPS != 10 {
		t.Errorf("ffprobe's frame rate: %v, want 10", v.FPS)
	}
	if strings.Join(v.Chapters, "|") != "Checkout|Done" {
		t.Errorf("ffprobe's chapters: %q", v.Chapters)
	}
	// Without a recording, no pointer is drawn.
	s.MustRun("browser_hover", `{"selector":"h1"}`)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustRun("browser_hover", `{"selector":"h1"}`)
	if got := evalValue(t, s, `{"expression":"document.getElementById('__barrhawk_cursor') === null"}`); got != true {
		t.Errorf("a pointer drawn after the recording stopped")
	}
}
