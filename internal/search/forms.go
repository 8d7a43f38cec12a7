package search

import (
	"regexp"
	"slices"
	"strings"
)

// forms are requests about the server's own tools rather than for work:
// asking which tool does something is tool_search's, calling a tool the
// list does not show by its name is tool_call's, asking what a request
// or a call would take is intent_analyze's. A query in one of
// these forms puts its tool first.
// Each form has words without one of which it cannot match (need), so
// that most queries are not put to its expression at all.
var forms = []struct {
	need []string
	re   *regexp.Regexp
	tool string
}{
	{[]string{"tool", "anything"}, regexp.MustCompile(`(?i)\b(?:which|what) tools?\s+(?:should|can|could)\s+(?:i|we|you)\b|\b(?:which|what) tools?\s+(?:to|for)\b|` +
		`\bis there (?:a|any|some) tool\b|\bis there (?:something|anything) in (?:the|this|your|our) (?:toolbox|tool ?list|tools)\b|\bany tools?\s+(?:here\s+|in here\s+)?(?:that|which|to|for)\b|` +
		`\b(?:is there )?anything (?:here |in here |in (?:the|this|your) (?:toolbox|server|tool list) )?(?:that|which) can\b|\bgot anything for\b|` +
		`\bfind (?:me )?(?:the |a )?(?:right |best )?tool\b|\bdo (?:we|you|i) have (?:a|any) tool\b`), "tool_search"},
	// A tool called by its name, one the list does not show.
	{[]string{"_"}, regexp.MustCompile(`(?i)\b[a-z0-9]+_[a-z0-9_]+\b.*\b(?:hidden|unlisted|not listed|isn'?t? listed|by (?:its )?name|(?:isn'?t?|not) in (?:my|the) (?:\w+ )?list)\b|` +
		`\b(?:hidden|unlisted)\s+(?:tool\s+)?[a-z0-9]+_[a-z0-9_]+\b`), "tool_call"},
	{[]string{"what", "behind"}, regexp.MustCompile(`(?i)\bwhat(?: does| would| is|'s|’s) (?:this|that|the|my) (?:request|call|prompt|task|ticket|story|requirement|ask)\b[^?]*\b(?:want|need|mean|asking|trying|take|after)|` +
		`\bwhat would\b[^?]*\bneed\b[^?]*\btool[- ]?wise\b|\bwork out what\b[^.]*\b(?:is|are) (?:really |actually )?(?:asking|after)\b|` +
		`\b(?:goal|intent) behind\b|\bwhat do you think (?:i'?m|i am|we'?re|we are) after\b|\bwhat (?:this|that) (?:call|request|ticket|story) is (?:really |actually )?(?:trying|asking)\b|\bwhat (?:this|that|it) is (?:really |actually )asking\b|` +
		`\b(?:what (?:is|does)|whats|what's) (?:this|that|it) (?:really |actually )?(?:asking|after|want|mean)\b|\bfigure out what (?:this|that|it) means\b`), "intent_analyze"},
}

// Form is the tool a query's form asks for (tool_search for "which tool
// can ...?"), or "" when it asks for work.
func Form(query string) string {
	lower := strings.ToLower(query)
	for _, f := range forms {
		if slices.ContainsFunc(f.need, func(w string) bool { return strings.Contains(lower, w) }) && f.re.MatchString(query) {
			return f.tool
		}
	}
	return ""
}
