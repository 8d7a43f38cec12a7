package learned

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// shop is a small world of labelled requests: a form on a page is filled
// after the page is opened, though nobody says "open"; a price is read
// from the page and nothing is opened for a hash.
func shop() []Example {
	var out []Example
	for i := range 30 {
		out = append(out,
			Example{Text: fmt.Sprintf("fill in the signup form with user%d and submit", i), Chosen: []string{"browser_fill_form", "browser_click"},
				Want: []string{"browser_navigate", "browser_fill_form", "browser_click"}},
			Example{Text: fmt.Sprintf("fill the address form for order %d", i), Chosen: []string{"browser_fill_form"},
				Want: []string{"browser_navigate", "browser_fill_form", "?browser_click"}},
			Example{Text: fmt.Sprintf("sha256 of build-%d.tar", i), Chosen: []string{"hash_text"}, Want: []string{"hash_text"}},
			Example{Text: fmt.Sprintf("check the price of item %d is shown", i), Chosen: []string{"browser_navigate", "assert_text"},
				Want: []string{"browser_navigate", "assert_text|assert_visible"}},
		)
	}
	return out
}

func has(tools []string) func(string) bool {
	return func(name string) bool { return slices.Contains(tools, name) }
}

func names(l []Likely) []string {
	var out []string
	for _, x := range l {
		out = append(out, x.Tool)
	}
	return out
}

func TestAddsWhatLabelledRequestsTookForGranted(t *testing.T) {
	m := Train(shop())
	all := has(m.Tools)
	got := m.Add("fill in the login form as ana and submit it", []string{"browser_fill_form", "browser_click"}, all)
	if !slices.Equal(names(got), []string{"browser_navigate"}) {
		t.Fatalf("a form filled with no page opened: the model adds %v, want [browser_navigate]", names(got))
	}
	if p := got[0].Probability; p <= Threshold || p > 1 {
		t.Errorf("browser_navigate added with probability %v, want over %v", p, Threshold)
	}
	if nav, form := got[0].Position, m.Position[slices.Index(m.Tools, "browser_fill_form")]; nav >= form {
		t.Errorf("browser_navigate usually comes at %v and the form at %v: the page should come first", nav, form)
	}
	if got := m.Add("sha256 of release.tar", []string{"hash_text"}, all); len(got) != 0 {
		t.Errorf("a hash needs nothing more; the model adds %v", names(got))
	}
	// A tool the rules chose is not added again; one the server lacks is
	// not added at all.
	if got := m.Add("fill in the signup form and submit", []string{"browser_navigate", "browser_fill_form", "browser_click"}, all); len(got) != 0 {
		t.Errorf("every tool chosen already; the model adds %v", names(got))
	}
	if got := m.Add("fill in the signup form and submit", []string{"browser_fill_form"}, has([]string{"browser_fill_form"})); len(got) != 0 {
		t.Errorf("a server without browser_navigate got %v", names(got))
	}
}

func TestTrainingIsReproducible(t *testing.T) {
	a, err := Train(shop()).Encode()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(shop()).Encode()
	if !bytes.Equal(a, b) {
		t.Error("two trainings on the same examples wrote different models")
	}
	m, err := Decode(a)
	if err != nil {
		t.Fatal(err)
	}
	if m.Data != Fingerprint(shop()) {
		t.Errorf("the model says it was trained on %s, the examples' fingerprint is %s", m.Data, Fingerprint(shop()))
	}
	other := shop()
	other[0].Want = []string{"browser_fill_form"}
	if Fingerprint(other) == m.Data {
		t.Error("a changed label left the fingerprint as it was")
	}
}

func TestDecodeSaysWhatIsWrong(t *testing.T) {
	zip := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	unzip := func(b []byte) []byte {
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(r)
		return out
	}
	good, _ := Train(shop()).Encode()
	raw := unzip(good)
	wrongTool, _ := (&Model{Tools: []string{"a"}, Position: []float64{0}, Weights: map[string][]int32{"w:x": {3, 100}}}).Encode()
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"not gzip", []byte("plain text, not a gzip stream"), "invalid header"},
		{"another format", zip([]byte(`{"tools":["a"]}`)), "not a model of this format"},
		{"cut short", zip(raw[:len(raw)/2]), "cut short or damaged"},
		{"a tool past the list", wrongTool, `feature "w:x" names tool 3 of 1`},
	} {
		if _, err := Decode(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Decode = %v, want an error saying %q", c.name, err, c.want)
		}
	}
	m, err := Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := m.Encode()
	if !bytes.Equal(again, good) {
		t.Error("a decoded model encodes to other bytes")
	}
}

func TestTheBuiltInModelLoads(t *testing.T) {
	m, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.PositionOf("browser_navigate"); !ok {
		t.Error("the built-in model does not know browser_navigate")
	}
	if _, ok := m.PositionOf("no_such_tool"); ok {
		t.Error("the built-in model knows no_such_tool")
	}
}

func TestFeatures(t *testing.T) {
	got := Features("Clicking the Buttons, the 3 buttons!", []string{"browser_click"})
	want := []string{"b:button_the", "b:click_the", "b:the_button", "bias", "r:browser_click", "w:button", "w:click", "w:the"}
	if !slices.Equal(got, want) {
		t.Errorf("Features = %v, want %v", got, want)
	}
}

// BenchmarkAdd is the learned layer's own cost for a request of eight
// steps, over the built-in model.
func BenchmarkAdd(b *testing.B) {
	m, err := Embedded()
	if err != nil {
		b.Fatal(err)
	}
	const text = "Log in to https://app.example.com/login as admin. Go to the orders page, filter by status 'paid', check the first row shows 3 items. Take a screenshot, then open a new session as a guest and check the cart is empty. Compare both screenshots"
	chosen := []string{"browser_navigate", "browser_fill_form", "browser_click", "assert_text", "browser_screenshot", "browser_session_new", "fs_diff"}
	for b.Loop() {
		m.Add(text, chosen, func(string) bool { return true })
	}
}

// BenchmarkDecode is the built-in model's decoding, done once per
// process.
func BenchmarkDecode(b *testing.B) {
	for b.Loop() {
		if _, err := Decode(embedded); err != nil {
			b.Fatal(err)
		}
	}
}
