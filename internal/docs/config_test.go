package docs

import (
	"strings"
	"testing"
	"time"
)

// The types of testdata/conf, as the config package would declare them.
type (
	Root struct {
		Pool Pool   `koanf:"pool"`
		Home string `koanf:"home"`
		File string `koanf:"-"`
	}
	Pool struct {
		Size    int               `koanf:"size"`
		Wait    time.Duration     `koanf:"wait"`
		Grace   time.Duration     `koanf:"grace"`
		Limit   int64             `koanf:"limit"`
		Dir     string            `koanf:"dir"`
		Servers map[string]Server `koanf:"servers"`
	}
	Server struct {
		Command string `koanf:"command"`
	}
)

func TestConfigReference(t *testing.T) {
	def := Root{Home: "/h/.bh", Pool: Pool{Size: 4, Wait: 90 * time.Second, Grace: 720 * time.Hour, Limit: 512 << 20, Dir: "/h/.bh/dir"}}
	got, err := ConfigReference("testdata/conf", def, ConfigOptions{
		Home:    "/h/.bh",
		Machine: map[string]string{"pool.size": "the number of cores"},
		Env:     []EnvVar{{"X_SIZE", "pool.size", "size | count"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## pool\n\n`pool` configures the pool.\n",
		"| `pool.size` | the number of cores | `size` caps the pool; see `wait`. |",
		"| `pool.wait` | `1m30s` | `wait` and `grace` bound a stop \\| a start. |",
		"| `pool.grace` | `720h` | `wait` and `grace` bound a stop \\| a start. |",
		"| `pool.limit` | `512MiB` |",
		"| `pool.dir` | `~/.barrhawk/dir` | `dir` is under Home; the API takes it. |",
		"| `pool.servers` | `{}` | `servers` by name. |",
		"| `pool.servers.NAME.command` | `\"\"` | `command` starts it. |",
		"## Other keys",
		"| `home` | `~/.barrhawk` | `home` is where state lives. |",
		"| `X_SIZE` | `pool.size` | size \\| count |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ConfigReference lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "`file`") {
		t.Errorf("ConfigReference documents a field tagged koanf:\"-\":\n%s", got)
	}
}

// A key without a doc comment cannot be documented, so it is an error.
func TestConfigReferenceUndocumented(t *testing.T) {
	type Pool struct {
		Size int `koanf:"size"`
	}
	type Root struct {
		Pool Pool `koanf:"pool"`
	}
	_, err := ConfigReference("testdata/undocumented", Root{}, ConfigOptions{})
	if err == nil || !strings.Contains(err.Error(), "Pool.Size has no doc comment") {
		t.Errorf("err = %v, want one naming Pool.Size", err)
	}
}

func TestFormatSizesAndDurations(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 100_000: "100KB", 16 << 20: "16MiB", 1 << 30: "1GiB", 1500: "1500", 2048: "2KiB"} {
		if got := size(in); got != want {
			t.Errorf("size(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{5 * time.Minute: "5m", 100 * time.Millisecond: "100ms", 720 * time.Hour: "720h", 90 * time.Minute: "1h30m", 0: "0s"} {
		if got := shortDuration(in); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", in, got, want)
		}
	}
}
