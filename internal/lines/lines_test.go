package lines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func TestReadBoundsLongLines(t *testing.T) {
	t.Parallel()
	long := `{"id":"big","pad":"` + strings.Repeat("x", 300<<10) + "\"}\n"
	r := bufio.NewReaderSize(strings.NewReader("short\r\n"+long+"next\n"+"last"), 64<<10)
	line, size, err := Read(r, 100<<10, 4096)
	if string(line) != "short" || size != 5 || err != nil {
		t.Fatalf("first: %q %d %v", line, size, err)
	}
	line, size, err = Read(r, 100<<10, 4096)
	if size != len(long) || len(line) > 4096 || err != nil || !strings.HasPrefix(string(line), `{"id":"big"`) {
		t.Fatalf("long: kept %d bytes, size %d, %v", len(line), size, err)
	}
	if line, _, err = Read(r, 100<<10, 4096); string(line) != "next" || err != nil {
		t.Fatalf("after the long line: %q %v", line, err)
	}
	if line, _, err = Read(r, 100<<10, 4096); string(line) != "last" || err == nil {
		t.Fatalf("last line without newline: %q %v", line, err)
	}
}

func TestReadEndsKeepsBothEnds(t *testing.T) {
	t.Parallel()
	long := `{"pad":"` + strings.Repeat("x", 300<<10) + `","id":7}`
	r := bufio.NewReaderSize(strings.NewReader("short\r\n"+long+"\r\n"+"last"), 64<<10)
	head, size, tail, err := ReadEnds(r, 100<<10, 16)
	if string(head) != "short" || size != 5 || tail != nil || err != nil {
		t.Fatalf("first: %q %d %q %v", head, size, tail, err)
	}
	head, size, tail, err = ReadEnds(r, 100<<10, 16)
	if size != len(long)+2 || string(head) != long[:16] || string(tail) != long[len(long)-16:] || err != nil {
		t.Fatalf("long: head %q, tail %q, size %d, %v", head, tail, size, err)
	}
	if head, _, _, err = ReadEnds(r, 100<<10, 16); string(head) != "last" || err == nil {
		t.Fatalf("last line without newline: %q %v", head, err)
	}
}

// countingWriter counts the writes that reach it.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	buf    bytes.Buffer
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.buf.Write(b)
}

func TestWriterKeepsEveryLineWhole(t *testing.T) {
	t.Parallel()
	out := &countingWriter{}
	lw := NewWriter(out)
	var wg sync.WaitGroup
	big := strings.Repeat("z", FlushAt*2)
	for i := range 64 {
		wg.Go(func() {
			line := `{"n":` + strings.Repeat("1", i+1) + `}`
			if i == 10 {
				line = `{"big":"` + big + `"}`
			}
			if err := lw.WriteLine([]byte(line)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	if len(lines) != 64 {
		t.Fatalf("want 64 lines, got %d", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("a line was torn: %.80s", l)
		}
	}
}
