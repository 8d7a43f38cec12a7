package browser

import (
	"context"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func checkTool(name string, want bool) tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Timeout  *int64 `json:"timeout"`
	}
	verb, state := "Check", "checked"
	phrases := []string{"tick checkbox", "check the box", "accept terms checkbox", "select radio button", "turn on switch", "toggle on", "enable the toggle", "make sure checkbox is checked", "setChecked true"}
	if !want {
		verb, state = "Uncheck", "unchecked"
		phrases = []string{"untick checkbox", "uncheck the box", "clear checkbox", "turn off switch", "toggle off", "disable the toggle", "deselect checkbox", "make sure checkbox is unchecked", "setChecked false"}
	}
	return tool.Tool{
		Def: def(name, verb+" a checkbox or radio button (or its label, or an element with role checkbox, radio or switch) as Playwright does: nothing is done when it is "+state+" already, "+
			"else it is clicked, and a click that does not change it is an error. Returns {selector, matched, element, checked, changed}.", true,
			schema.Object(selectorArg(true), timeoutArg())).
			WithPhrases(phrases...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			st, err := p.SetChecked(ctx, in.Selector, want, findOpts(in.Timeout, false))
			if err != nil {
				return nil, err
			}
			out := located(p, ctx, in.Selector, st.Probe)
			out["checked"], out["changed"], out["kind"] = want, st.Changed, st.Kind
			if !st.Changed {
				out["note"] = "already " + state + ": nothing was done"
			}
			return out, nil
		}),
	}
}

func pressSequentially() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Text     string `json:"text"`
		Submit   bool   `json:"submit"`
		Delay    int64  `json:"delay"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_press_sequentially", "Type text key by key, as a user does: every character is a real keydown, keypress, input and keyup (for pages that react to each key: autocomplete, masks, key handlers), "+
			"into the element (focused first) or, without a selector, the focused element; keys held with browser_keydown apply. Returns {selector, typed, submitted}.", true,
			schema.Object(selectorArg(false), schema.String("text", "The text to type (a newline presses Enter)").Required(),
				schema.Boolean("submit", "Press Enter after the text").Default(false),
				schema.Integer("delay", "Milliseconds between keys").Default(0).Min(0).Max(1000),
				timeoutArg())).
			WithPhrases("type slowly", "type character by character", "keystrokes one by one", "simulate typing", "fire key events for each letter", "pressSequentially", "type into autocomplete"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			pr, err := p.PressSequentially(ctx, in.Selector, in.Text, in.Submit, time.Duration(in.Delay)*time.Millisecond, findOpts(in.Timeout, false))
			if err != nil {
				return nil, err
			}
			out := map[string]any{}
			if pr != nil {
				out = located(p, ctx, in.Selector, pr)
			}
			out["typed"], out["submitted"] = len([]rune(in.Text)), in.Submit
			return out, nil
		}),
	}
}

func keyTool(name string, down bool) tool.Tool {
	type args struct {
		Key string `json:"key"`
	}
	desc := "Press a key and hold it (Playwright's keyboard.down): a modifier (Shift, Control, Alt, Meta) applies to the keys typed and the mouse buttons pressed after, until browser_keyup. Returns {key, held}."
	phrases := []string{"hold shift", "hold down control", "keyboard down", "press and hold key", "shift click", "ctrl click multi select"}
	if !down {
		desc = "Release a key pressed with browser_keydown. Returns {key, held}."
		phrases = []string{"release shift", "let go of key", "keyboard up", "release modifier key", "release ctrl", "stop holding control"}
	}
	return tool.Tool{
		Def: def(name, desc, true, schema.Object(schema.String("key", "Playwright's key name: Shift, Control, Alt, Meta, Enter, ArrowLeft, a, ...").Required().Min(1))).
			WithPhrases(phrases...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			var err error
			if down {
				err = p.KeyDown(ctx, in.Key)
			} else {
				err = p.KeyUp(ctx, in.Key)
			}
			if err != nil {
				return nil, err
			}
			h := p.HeldModifiers()
			if h == nil {
				h = []string{}
			}
			return map[string]any{"key": in.Key, "held": h}, nil
		}),
	}
}

func mouseButtonTool(name string, down bool) tool.Tool {
	type args struct {
		Button string `json:"button"`
	}
	desc := "Press a mouse button and hold it, where the mouse is (browser_mouse_move puts it). Returns {button, x, y}."
	phrases := []string{"press mouse button", "mouse down", "hold mouse button", "push the mouse button down", "start a manual drag", "press and hold"}
	if !down {
		desc = "Release a mouse button pressed with browser_mouse_down, where the mouse is. Returns {button, x, y}."
		phrases = []string{"release mouse button", "mouse up", "let go of mouse", "end a manual drag", "finish the drag", "drop after drag"}
	}
	return tool.Tool{
		Def: def(name, desc, true, schema.Object(schema.String("button", "Mouse button").Enum("left", "right", "middle").Default("left"))).
			WithPhrases(phrases...),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			var err error
			if down {
				err = p.MouseDown(ctx, in.Button)
			} else {
				err = p.MouseUp(ctx, in.Button)
			}
			if err != nil {
				return nil, err
			}
			if in.Button == "" {
				in.Button = "left"
			}
			x, y := p.MousePosition()
			return map[string]any{"button": in.Button, "x": x, "y": y}, nil
		}),
	}
}
