package docs

import (
	"strings"
)

// Block is a fenced code block of a Markdown text.
type Block struct {
	Lang string // the info string's first word: json, sh, yaml, …
	Text string // the lines between the fences
	Line int    // the line of the opening fence, from 1
}

// CodeBlocks returns the fenced code blocks of a Markdown text, indented
// ones (in a list item) included.
func CodeBlocks(markdown string) []Block {
	var out []Block
	var cur *Block
	var body []string
	fence, indent := "", 0
	for i, line := range strings.Split(markdown, "\n") {
		t := strings.TrimSpace(line)
		if cur != nil {
			if closesFence(t, fence) {
				cur.Text = strings.Join(body, "\n")
				out = append(out, *cur)
				cur, body = nil, nil
				continue
			}
			// Remove the fence's indentation from the lines inside.
			n := 0
			for n < indent && n < len(line) && line[n] == ' ' {
				n++
			}
			body = append(body, line[n:])
			continue
		}
		if f, ok := opensFence(t); ok {
			fence = f
			lang, _, _ := strings.Cut(strings.TrimSpace(t[len(fence):]), " ")
			indent = len(line) - len(strings.TrimLeft(line, " "))
			cur = &Block{Lang: lang, Line: i + 1}
		}
	}
	return out
}

// Transcript is one command of a shell block written as a session: the
// command after its "$ " prompt and the lines printed after it, up to the
// next prompt.
type Transcript struct {
	Command string
	Output  string
}

// Transcripts returns the commands of a shell block written with "$ "
// prompts, each with the output shown after it, or nil when the block has no
// prompt (then every line is a command).
func Transcripts(block string) []Transcript {
	var out []Transcript
	for _, line := range strings.Split(block, "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			out = append(out, Transcript{Command: cmd})
			continue
		}
		if len(out) > 0 {
			t := &out[len(out)-1]
			if t.Output != "" || line != "" {
				t.Output += line + "\n"
			}
		}
	}
	for i := range out {
		out[i].Output = strings.TrimRight(out[i].Output, "\n")
	}
	return out
}

// ShellCommands splits shell text into simple commands, each as its words:
// quotes ('…', "…") and backslashes are removed as a shell would, a
// backslash at the end of a line continues it, "#" at the start of a word
// starts a comment, and unquoted newlines, ";", "|", "||", "&&" and "&" end
// a command. Expansions ($VAR, $(…)) are kept as written; a "$(" holds its
// words to its ")", so that it stays one word.
func ShellCommands(text string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
			words = nil
		}
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			if rs[i] != '\n' {
				word.WriteRune(rs[i])
				inWord = true
			}
		case r == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				word.WriteRune(rs[i])
			}
		case r == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]) {
					i++
				}
				word.WriteRune(rs[i])
			}
		case r == '$' && i+1 < len(rs) && rs[i+1] == '(':
			inWord = true
			depth := 0
			for ; i < len(rs); i++ {
				word.WriteRune(rs[i])
				if rs[i] == '(' {
					depth++
				} else if rs[i] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
		case r == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			endCmd()
		case r == '\n' || r == ';' || r == '|' || r == '&':
			endCmd()
		case r == ' ' || r == '\t':
			endWord()
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	endCmd()
	return cmds
}
