package testbin

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// NeedFFmpeg fails the test when ffmpeg or ffprobe is missing (the video
// tests need them; scripts/test installs them).
func NeedFFmpeg(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not on PATH: the video tests need it; scripts/test installs it (apt-get install ffmpeg)", bin)
		}
	}
}

// Video is what ffprobe says of a video file with one stream.
type Video struct {
	Format, Codec         string
	Frames, Width, Height int
	Duration              float64 // seconds
	FPS                   float64 // the stream's frame rate (r_frame_rate)
	Chapters              []string
	Starts                []float64 // each chapter's start, seconds
}

// ProbeVideo reads the video at path with ffprobe, counting its frames.
func ProbeVideo(t testing.TB, path string) Video {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-show_entries",
		"format=duration,format_name:stream=codec_name,nb_read_frames,width,height,r_frame_rate:chapter=start_time:chapter_tags=title", "-show_chapters", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var v struct {
		Streams []struct {
			CodecName    string `json:"codec_name"`
			NbReadFrames string `json:"nb_read_frames"`
			Width        int    `json:"width"`
			Height       int    `json:"height"`
			FrameRate    string `json:"r_frame_rate"`
		} `json:"streams"`
		Chapters []struct {
			StartTime string            `json:"start_time"`
			Tags      map[string]string `json:"tags"`
		} `json:"chapters"`
		Format struct {
			Duration   string `json:"duration"`
			FormatName string `json:"format_name"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.Streams) != 1 {
		t.Fatalf("ffprobe %s: %s (%v)", path, out, err)
	}
	p := Video{Format: v.Format.FormatName, Codec: v.Streams[0].CodecName, Width: v.Streams[0].Width, Height: v.Streams[0].Height}
	p.Frames, _ = strconv.Atoi(v.Streams[0].NbReadFrames)
	p.Duration, _ = strconv.ParseFloat(v.Format.Duration, 64)
	if n, d, ok := strings.Cut(v.Streams[0].FrameRate, "/"); ok {
		num, _ := strconv.ParseFloat(n, 64)
		den, _ := strconv.ParseFloat(d, 64)
		if den > 0 {
			p.FPS = num / den
		}
	}
	for _, c := range v.Chapters {
		p.Chapters = append(p.Chapters, c.Tags["title"])
		s, _ := strconv.ParseFloat(c.StartTime, 64)
		p.Starts = append(p.Starts, s)
	}
	return p
}
