package fspath

import "testing"

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false}, // a sibling sharing a prefix
		{"/a", "/a/b", false},
		{"/anything", "/", true},
		{"/", "/", true},
		{"/a/b/c", "/a/b/", true}, // a trailing separator on dir
	} {
		if got := Within(c.path, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.path, c.dir, got, c.want)
		}
	}
	for _, c := range []struct {
		path string
		dirs []string
		want bool
	}{
		{"/a/b/c.md", []string{"/a/b"}, true},
		{"/a/bc/d.md", []string{"/a/b"}, false},
		{"/x.md", []string{"/"}, true},
		{"/a/b/c.md", nil, false},
		{"/a/b/c.md", []string{"", "/z", "/a/"}, true},
		{"/a/b/c.md", []string{""}, false},
	} {
		if got := WithinAny(c.path, c.dirs); got != c.want {
			t.Errorf("WithinAny(%s, %q) = %v, want %v", c.path, c.dirs, got, c.want)
		}
	}
}
