package redact

import (
	"strings"
	"sync"
	"testing"
)

func TestValues(t *testing.T) {
	t.Parallel()
	r := New("hunter2-long", "", "ab", `quo"te\secret`)
	r.Add("hunter2-longer")
	got := r.String(`pw hunter2-longer and hunter2-long; json {"p":"quo\"te\\secret"} plain quo"te\secret; ab stays`)
	for _, leak := range []string{"hunter2", `quo\"te`, `quo"te`} {
		if strings.Contains(got, leak) {
			t.Errorf("%q leaks %q", got, leak)
		}
	}
	if !strings.Contains(got, "ab stays") || strings.Count(got, Mask) != 4 {
		t.Errorf("redacted: %q", got)
	}
	if string(r.Bytes([]byte("x hunter2-long"))) != "x "+Mask {
		t.Error("Bytes")
	}
	var nilR *Redactor
	if nilR.String("postgres://u:pw@h/db") != "postgres://u:"+Mask+"@h/db" {
		t.Error("a nil Redactor still masks URLs")
	}
}

func TestURLs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"connect postgres://app:s3cr@t@db:5432/x failed": "connect postgres://app:" + Mask + "@db:5432/x failed",
		"redis://:pass123@127.0.0.1:6379/0":              "redis://:" + Mask + "@127.0.0.1:6379/0",
		"postgres://app@db/x":                            "postgres://app@db/x",
		"host=db user=app password=s3cret dbname=x":      "host=db user=app password=" + Mask + " dbname=x",
		"host=db password='a b c' dbname=x":              "host=db password=" + Mask + " dbname=x",
		"https://h/p?user=a&PASSWORD=zz&x=1":             "https://h/p?user=a&PASSWORD=" + Mask + "&x=1",
		"nothing secret here":                            "nothing secret here",
	} {
		if got := URLs(in); got != want {
			t.Errorf("URLs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	r := New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r.Add(strings.Repeat("s", 5+i))
			_ = r.String("sssssssssssss")
		})
	}
	wg.Wait()
	// Longest first: twelve of the thirteen go as one.
	if got := r.String("sssssssssssss"); got != Mask+"s" {
		t.Errorf("%q", got)
	}
}
