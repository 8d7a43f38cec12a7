package browser

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
)

// stopVideoTimeout bounds browser_stop_video, which encodes the whole
// recording.
const stopVideoTimeout = 5 * time.Minute

func startVideo() tool.Tool {
	type args struct {
		Filename string        `json:"filename"`
		Size     *browser.Size `json:"size"`
		FPS      int           `json:"fps"`
		Cursor   bool          `json:"cursor"`
	}
	d := def("browser_start_video", "Start recording a video of the active tab (its screencast); browser_video_chapter marks chapters and browser_stop_video writes the WebM (VP8, encoded by ffmpeg, which must be on PATH). "+
		"The frames keep the times the page drew them, so the video plays at real speed, at fps frames a second; cursor draws the mouse pointer where each click, hover or drag happens. Returns {recording, path, size, fps, cursor}.", true,
		schema.Object(
			schema.String("filename", "The .webm file to write"+filenameNote+"; default video-<time>.webm"),
			schema.Of("size", "Video size in pixels; the tab is scaled to fit and centred. Default: the viewport, scaled to fit 800×800", schema.Object(
				schema.Integer("width", "Width in pixels (rounded down to even)").Required().Min(16).Max(3840),
				schema.Integer("height", "Height in pixels (rounded down to even)").Required().Min(16).Max(2160))),
			schema.Integer("fps", "Video frame rate in frames per second (a frame is shown until the page draws the next)").Default(browser.DefaultVideoFPS).Min(1).Max(browser.MaxVideoFPS),
			schema.Boolean("cursor", "Draw a mouse pointer on the page at each action point (click, hover, drag), so the video shows where it acted").Default(false)))
	d.UsesRoots = true
	return tool.Tool{
		Def: d.WithPhrases("record video of the browser", "screen recording", "record the tab", "capture a video of the test", "webm recording", "record a screencast", "video of the session", "film the test run", "start filming the tab", "begin screen recording"),
		Run: browserRun(func(ctx context.Context, b *browser.Browser, in args) (any, error) {
			if in.Filename == "" {
				in.Filename = "video-" + time.Now().Format("20060102-150405") + ".webm"
			}
			if !strings.EqualFold(filepath.Ext(in.Filename), ".webm") {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"filename\": %q does not end in .webm; the video is a WebM (VP8): give a name such as %q", in.Filename, strings.TrimSuffix(in.Filename, filepath.Ext(in.Filename))+".webm")
			}
			if _, err := browser.FFmpeg(); err != nil {
				return nil, err
			}
			path, err := fs.WritePath(ctx, "filename", in.Filename)
			if err != nil {
				return nil, err
			}
			p, err := b.Active()
			if err != nil {
				return nil, err
			}
			o := browser.VideoOptions{Path: path, FPS: in.FPS, Cursor: in.Cursor}
			var size any = "the first frame's: the viewport, scaled to fit 800×800"
			if in.Size != nil {
				o.Width, o.Height = int(in.Size.Width)&^1, int(in.Size.Height)&^1
				size = map[string]int{"width": o.Width, "height": o.Height}
			}
			if err := b.StartVideo(ctx, p, o); err != nil {
				return nil, err
			}
			if o.FPS == 0 {
				o.FPS = browser.DefaultVideoFPS
			}
			return map[string]any{"recording": true, "path": path, "size": size, "fps": o.FPS, "cursor": o.Cursor}, nil
		}),
	}
}

// defaultChapterMs is how long a chapter's card shows when not said.
const defaultChapterMs = 1000

func videoChapter() tool.Tool {
	type args struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Duration    *int64 `json:"duration"`
	}
	d := def("browser_video_chapter", "Mark a chapter of the video being recorded, starting now: a WebM chapter of the file browser_stop_video writes (players and ffprobe list it), "+
		"and a full-page card with its title and description over the blurred page, shown for duration ms in the recorded tab (so the video shows it; the call returns when it is gone). Returns {title, startMs, shownMs}.", false,
		schema.Object(schema.String("title", "Chapter title").Required().Min(1).Max(500),
			schema.String("description", "Chapter description, on the card and kept in the chapter's tags").Max(2000),
			schema.Integer("duration", "Milliseconds to show the chapter card; 0 marks the chapter without a card").Default(defaultChapterMs).Min(0).Max(30_000)))
	d.Timeout = 45 * time.Second
	return tool.Tool{
		Def: d.
			WithPhrases("add a chapter to the video", "mark a step in the recording", "video chapter marker", "label this part of the recording", "bookmark in the screen recording"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			b, err := recordingBrowser(call)
			if err != nil {
				return nil, err
			}
			show := int64(defaultChapterMs)
			if in.Duration != nil {
				show = *in.Duration
			}
			c, err := b.VideoChapter(ctx, in.Title, in.Description, time.Duration(show)*time.Millisecond)
			if err != nil {
				return nil, err
			}
			return map[string]any{"title": c.Title, "startMs": c.StartMs, "shownMs": show}, nil
		}),
	}
}

func stopVideo() tool.Tool {
	d := def("browser_stop_video", "Stop the video recording of browser_start_video and write its WebM file (VP8, with its chapters). "+
		"Returns {path, frames, durationMs, chapters: [{title, startMs, endMs}], width, height, bytes}.", true, schema.Object())
	d.Timeout = stopVideoTimeout
	return tool.Tool{
		Def: d.WithPhrases("stop recording video", "save the screen recording", "finish the video", "end the recording and write webm", "stop screencast recording"),
		Run: tool.Typed(func(ctx context.Context, _ struct{}, call *tool.Call) (any, error) {
			b, err := recordingBrowser(call)
			if err != nil {
				return nil, err
			}
			return b.StopVideo(ctx)
		}),
	}
}

// recordingBrowser is the running browser, for the tools that act on a
// recording: without one there is none to act on (no browser is started).
func recordingBrowser(call *tool.Call) (*browser.Browser, error) {
	if err := call.NeedResources("browser tools"); err != nil {
		return nil, err
	}
	b, ok := browser.Lookup(call.Resources)
	if !ok {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "no video is being recorded (no browser runs): start one with browser_start_video {filename: \"name.webm\"} first")
	}
	return b, nil
}
