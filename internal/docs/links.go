package docs

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	codeSpan   = regexp.MustCompile("(`+)[^`]*?`+")
	heading    = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	linkText   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// Links returns the targets of a Markdown text's links and images, inline
// ([text](target)) and by reference ([ref]: target), outside code blocks
// and code spans.
func Links(markdown string) []string {
	var out []string
	for _, line := range prose(markdown) {
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// Anchors returns the anchors GitHub gives a Markdown text's headings: the
// slug of each, and for a slug seen before, the slug with -1, -2, … after it.
func Anchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(markdown) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := Slug(m[2])
		a := s
		if n := seen[s]; n > 0 {
			a = s + "-" + strconv.Itoa(n)
		}
		seen[s]++
		anchors[a] = true
	}
	return anchors
}

// Slug is the anchor GitHub gives a heading: its text (link text for
// links) in lower case, spaces turned into hyphens, and everything but
// letters, digits, hyphens and underscores dropped.
func Slug(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// prose returns the lines of a Markdown text outside fenced code blocks.
func prose(markdown string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(markdown, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if closesFence(t, fence) {
				fence = ""
			}
			continue
		}
		if f, ok := opensFence(t); ok {
			fence = f
			continue
		}
		out = append(out, line)
	}
	return out
}

// opensFence reports whether a trimmed line opens a fenced code block, and
// its fence (``` or ~~~, or longer).
func opensFence(t string) (string, bool) {
	if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
		return "", false
	}
	fence := t[:3]
	for _, r := range t[3:] {
		if r != rune(fence[0]) {
			break
		}
		fence += string(r)
	}
	return fence, true
}

// closesFence reports whether a trimmed line closes the block fence opened.
func closesFence(t, fence string) bool {
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}
