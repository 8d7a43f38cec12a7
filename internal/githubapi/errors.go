package githubapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/go-github/v75/github"
)

// Err turns what GitHub answered while doing what into one of our errors,
// with GitHub's own message and the token removed:
//   - a spent rate limit is RATE_LIMITED with its reset time (a secondary
//     one with the wait it names; transport.go has retried it once);
//   - 404 is NOT_FOUND, said as "not found or no access" (GitHub answers
//     404 for a private repository the token cannot see);
//   - 422 and 409 are INVALID_ARGS with each of GitHub's validation
//     messages; 401 and 403 FORBIDDEN, saying where the token came from;
//   - a network failure or a 5xx is CONNECTION_FAILED.
//
// The call's own timeout or cancellation is left as it is.
func (c *Client) Err(what string, err error) error {
	if err == nil {
		return nil
	}
	var te *tool.Error
	if errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	out := c.classify(what, err)
	out.Message = c.Redact(out.Message)
	return out
}

func (c *Client) classify(what string, err error) *tool.Error {
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &rl):
		reset := rl.Rate.Reset.Time
		return tool.Errorf(tool.CodeRateLimited, "%s: GitHub's rate limit is spent (%d requests an hour for %s); it resets at %s (in %s). Wait until then, or connect with another token (gh_connect)",
			what, rl.Rate.Limit, c.who(), reset.UTC().Format(time.RFC3339), until(reset))
	case errors.As(err, &ab):
		wait := "a minute or more"
		if ab.RetryAfter != nil {
			wait = ab.RetryAfter.Round(time.Second).String()
		}
		return tool.Errorf(tool.CodeRateLimited, "%s: GitHub's secondary rate limit (too many requests in a short time, or too many at once): %s. Try again after %s, and send fewer requests at once",
			what, strings.TrimSpace(ab.Message), wait)
	case errors.As(err, &er) && er.Response != nil:
		return c.fromStatus(what, er)
	}
	return tool.Errorf(tool.CodeConnectionFailed, "%s: cannot reach GitHub's API at %s (%s): %v", what, c.API, c.APIFrom, err)
}

// fromStatus classifies an error answer by its HTTP status.
func (c *Client) fromStatus(what string, er *github.ErrorResponse) *tool.Error {
	msg := gitHubMessage(er)
	switch s := er.Response.StatusCode; {
	case s == http.StatusNotFound:
		hint := "check the owner, repository and names, or use a token that can see it"
		if !c.Authenticated() {
			hint = "no token was found (set GH_TOKEN or GITHUB_TOKEN, log in with gh, or call gh_connect): without one only public repositories can be read"
		}
		return tool.Errorf(tool.CodeNotFound, "%s: not found, or no access (GitHub answers 404 for a private repository the token cannot see): %s; %s", what, msg, hint)
	case s == http.StatusUnprocessableEntity, s == http.StatusConflict:
		return tool.Errorf(tool.CodeInvalidArgs, "%s: GitHub refused it (%d): %s", what, s, msg)
	case s == http.StatusUnauthorized:
		return tool.Errorf(tool.CodeForbidden, "%s: GitHub refused the token from %s (%s); give a valid one (GH_TOKEN, GITHUB_TOKEN, gh auth login, or gh_connect)", what, c.who(), msg)
	case s == http.StatusForbidden:
		scopes := ""
		if need := er.Response.Header.Get("X-Accepted-OAuth-Scopes"); need != "" {
			scopes = fmt.Sprintf(" (it needs the scopes %q; the token has %q)", need, er.Response.Header.Get("X-OAuth-Scopes"))
		}
		return tool.Errorf(tool.CodeForbidden, "%s: GitHub refused it for %s: %s%s", what, c.who(), msg, scopes)
	case s >= 500:
		return tool.Errorf(tool.CodeConnectionFailed, "%s: GitHub's API at %s failed (%d): %s; try again", what, c.API, s, msg)
	}
	return tool.Errorf(tool.CodeToolError, "%s: GitHub answered %d: %s", what, er.Response.StatusCode, msg)
}

// gitHubMessage is GitHub's message with each of its validation errors.
func gitHubMessage(er *github.ErrorResponse) string {
	parts := []string{strings.TrimSpace(er.Message)}
	for _, e := range er.Errors {
		switch {
		case e.Message != "":
			parts = append(parts, e.Message)
		case e.Field != "":
			parts = append(parts, fmt.Sprintf("%s.%s: %s", e.Resource, e.Field, e.Code))
		case e.Code != "":
			parts = append(parts, e.Code)
		}
	}
	return strings.Join(parts, "; ")
}

// who says whose requests these are, for messages.
func (c *Client) who() string {
	if !c.Authenticated() {
		return "anonymous requests"
	}
	return "the token from " + c.TokenFrom
}

// until is how long until t, to the second, never negative.
func until(t time.Time) time.Duration {
	d := time.Until(t).Round(time.Second)
	if d < 0 {
		return 0
	}
	return d
}
