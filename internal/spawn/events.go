// Package spawn delegates a task to a sub-agent CLI (Claude Code, Gemini
// CLI) running headless in a sandboxed worktree. This file reads the
// CLIs' stream-json output into typed events; the rest of the drive
// (manifest, sandbox, monitor, recovery, pull request) builds on them.
package spawn

import (
	"encoding/json"
	"fmt"
	"strings"
)

// EventKind names what an event is.
type EventKind string

// The kinds of events, common to both CLIs.
const (
	EventInit       EventKind = "init"        // session started: Session, Model
	EventText       EventKind = "text"        // the agent's words: Text
	EventToolUse    EventKind = "tool_use"    // the agent calls a tool: Tool, ToolID, Input
	EventFileRead   EventKind = "file_read"   // a tool_use that reads Path
	EventFileWrite  EventKind = "file_write"  // a tool_use that writes or edits Path
	EventToolResult EventKind = "tool_result" // a tool's answer: ToolID, Text, IsError
	EventResult     EventKind = "result"      // the end: Text (final message), IsError, Usage, CostUSD, Denials
	EventError      EventKind = "error"       // a warning or error the CLI reported: Text
	EventOther      EventKind = "other"       // a line of a type we do not use (kept raw)
)

// Usage is token counts as the CLIs report them.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	CachedTokens int64 `json:"cachedTokens,omitempty"`
}

// Denial is a tool call the CLI refused for want of permission.
type Denial struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
}

// Event is one thing the agent did or said.
type Event struct {
	Kind    EventKind       `json:"kind"`
	Session string          `json:"session,omitempty"`
	Model   string          `json:"model,omitempty"`
	Text    string          `json:"text,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	ToolID  string          `json:"toolId,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Path    string          `json:"path,omitempty"`
	IsError bool            `json:"isError,omitempty"`
	Usage   *Usage          `json:"usage,omitempty"`
	CostUSD *float64        `json:"costUsd,omitempty"`
	Denials []Denial        `json:"denials,omitempty"`
	// Raw is the line as the CLI printed it.
	Raw json.RawMessage `json:"-"`
}

// Parser turns one line of a CLI's stream-json output into events (a line
// may hold several: an assistant message with text and tool calls).
type Parser func(line []byte) ([]Event, error)

// fileTools are the tools that read or write one file, by CLI, with the
// name of their path argument.
var (
	readTools  = map[string]string{"Read": "file_path", "read_file": "absolute_path", "NotebookRead": "notebook_path"}
	writeTools = map[string]string{"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path",
		"write_file": "file_path", "replace": "file_path"}
)

// fileEvent adds a file_read or file_write event for a tool call that
// touches one file.
func fileEvent(tool string, input json.RawMessage) (Event, bool) {
	kind, key := EventFileRead, readTools[tool]
	if key == "" {
		kind, key = EventFileWrite, writeTools[tool]
	}
	if key == "" {
		return Event{}, false
	}
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return Event{}, false
	}
	p, _ := args[key].(string)
	if p == "" {
		p, _ = args["path"].(string)
	}
	if p == "" {
		return Event{}, false
	}
	return Event{Kind: kind, Tool: tool, Path: p}, true
}

// ParseClaude reads Claude Code's `-p --output-format stream-json
// --verbose` lines: system (init), assistant and user messages whose
// content blocks are text, tool_use and tool_result, and the final result
// with total_cost_usd, usage and permission_denials.
func ParseClaude(line []byte) ([]Event, error) {
	var l struct {
		Type      string `json:"type"`
		Subtype   string `json:"subtype"`
		SessionID string `json:"session_id"`
		Model     string `json:"model"`
		Message   struct {
			Content json.RawMessage `json:"content"`
			Usage   *struct {
				InputTokens     int64 `json:"input_tokens"`
				OutputTokens    int64 `json:"output_tokens"`
				CacheReadTokens int64 `json:"cache_read_input_tokens"`
			} `json:"usage"`
		} `json:"message"`
		Result       string   `json:"result"`
		IsError      bool     `json:"is_error"`
		TotalCostUSD *float64 `json:"total_cost_usd"`
		Usage        *struct {
			InputTokens     int64 `json:"input_tokens"`
			OutputTokens    int64 `json:"output_tokens"`
			CacheReadTokens int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
		PermissionDenials []struct {
			ToolName  string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, fmt.Errorf("a claude stream-json line that is not JSON: %w", err)
	}
	raw := json.RawMessage(append([]byte(nil), line...))
	switch l.Type {
	case "system":
		if l.Subtype == "init" {
			return []Event{{Kind: EventInit, Session: l.SessionID, Model: l.Model, Raw: raw}}, nil
		}
	case "assistant", "user":
		blocks, text := contentBlocks(l.Message.Content)
		var out []Event
		if text != "" && l.Type == "assistant" {
			out = append(out, Event{Kind: EventText, Text: text, Raw: raw})
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text != "" && l.Type == "assistant" {
					out = append(out, Event{Kind: EventText, Text: b.Text, Raw: raw})
				}
			case "tool_use":
				out = append(out, Event{Kind: EventToolUse, Tool: b.Name, ToolID: b.ID, Input: b.Input, Raw: raw})
				if fe, ok := fileEvent(b.Name, b.Input); ok {
					fe.ToolID, fe.Raw = b.ID, raw
					out = append(out, fe)
				}
			case "tool_result":
				out = append(out, Event{Kind: EventToolResult, ToolID: b.ToolUseID, Text: resultText(b.Content), IsError: b.IsError, Raw: raw})
			}
		}
		if len(out) > 0 && l.Type == "assistant" && l.Message.Usage != nil {
			out[0].Usage = &Usage{InputTokens: l.Message.Usage.InputTokens, OutputTokens: l.Message.Usage.OutputTokens, CachedTokens: l.Message.Usage.CacheReadTokens}
		}
		return out, nil
	case "result":
		e := Event{Kind: EventResult, Text: l.Result, IsError: l.IsError || strings.HasPrefix(l.Subtype, "error"), CostUSD: l.TotalCostUSD, Session: l.SessionID, Raw: raw}
		if l.Usage != nil {
			e.Usage = &Usage{InputTokens: l.Usage.InputTokens, OutputTokens: l.Usage.OutputTokens, CachedTokens: l.Usage.CacheReadTokens}
		}
		for _, d := range l.PermissionDenials {
			e.Denials = append(e.Denials, Denial{Tool: d.ToolName, Input: d.ToolInput})
		}
		if e.Text == "" && e.IsError {
			e.Text = l.Subtype
		}
		return []Event{e}, nil
	}
	return []Event{{Kind: EventOther, Raw: raw}}, nil
}

// block is one content block of a Claude message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// contentBlocks reads a message's content: a string, or a list of blocks.
func contentBlocks(raw json.RawMessage) ([]block, string) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return nil, s
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs, ""
}

// resultText is a tool result's content as text (a string, or text blocks).
func resultText(raw json.RawMessage) string {
	bs, s := contentBlocks(raw)
	if s != "" || len(bs) == 0 {
		return s
	}
	var parts []string
	for _, b := range bs {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ParseGemini reads Gemini CLI's `-p ... --output-format stream-json`
// lines: init, message (role user or assistant, delta chunks), tool_use,
// tool_result, error and result with stats.
func ParseGemini(line []byte) ([]Event, error) {
	var l struct {
		Type       string          `json:"type"`
		SessionID  string          `json:"session_id"`
		Model      string          `json:"model"`
		Role       string          `json:"role"`
		Content    string          `json:"content"`
		ToolName   string          `json:"tool_name"`
		ToolID     string          `json:"tool_id"`
		Parameters json.RawMessage `json:"parameters"`
		Status     string          `json:"status"`
		Output     string          `json:"output"`
		Severity   string          `json:"severity"`
		Message    string          `json:"message"`
		Error      *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		Stats *struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
			Cached       int64 `json:"cached"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, fmt.Errorf("a gemini stream-json line that is not JSON: %w", err)
	}
	raw := json.RawMessage(append([]byte(nil), line...))
	switch l.Type {
	case "init":
		return []Event{{Kind: EventInit, Session: l.SessionID, Model: l.Model, Raw: raw}}, nil
	case "message":
		if l.Role == "assistant" && l.Content != "" {
			return []Event{{Kind: EventText, Text: l.Content, Raw: raw}}, nil
		}
		return nil, nil
	case "tool_use":
		out := []Event{{Kind: EventToolUse, Tool: l.ToolName, ToolID: l.ToolID, Input: l.Parameters, Raw: raw}}
		if fe, ok := fileEvent(l.ToolName, l.Parameters); ok {
			fe.ToolID, fe.Raw = l.ToolID, raw
			out = append(out, fe)
		}
		return out, nil
	case "tool_result":
		e := Event{Kind: EventToolResult, ToolID: l.ToolID, Text: l.Output, IsError: l.Status == "error", Raw: raw}
		if l.Error != nil {
			e.Text = strings.TrimSpace(e.Text + "\n" + l.Error.Type + ": " + l.Error.Message)
		}
		return []Event{e}, nil
	case "error":
		return []Event{{Kind: EventError, Text: l.Severity + ": " + l.Message, IsError: l.Severity == "error", Raw: raw}}, nil
	case "result":
		e := Event{Kind: EventResult, IsError: l.Status == "error", Raw: raw}
		if l.Error != nil {
			e.Text = l.Error.Type + ": " + l.Error.Message
		}
		if l.Stats != nil {
			e.Usage = &Usage{InputTokens: l.Stats.InputTokens, OutputTokens: l.Stats.OutputTokens, CachedTokens: l.Stats.Cached}
		}
		return []Event{e}, nil
	}
	return []Event{{Kind: EventOther, Raw: raw}}, nil
}
