package browser

import "testing"

// TestSelectorCode: our selectors (Playwright's language) as Playwright code.
func TestSelectorCode(t *testing.T) {
	for sel, want := range map[string]string{
		`role=button[name="Save"]`:                 `getByRole('button', { name: 'Save' })`,
		`role=button[name="Save"s]`:                `getByRole('button', { name: 'Save', exact: true })`,
		`internal:role=link[name="It's ]"i]`:       `getByRole('link', { name: 'It\'s ]' })`,
		`role=checkbox[checked]`:                   `getByRole('checkbox', { checked: true })`,
		`role=heading[level=2]`:                    `getByRole('heading', { level: 2 })`,
		`role=button[name=/sav/i]`:                 `getByRole('button', { name: /sav/i })`,
		`text=Sign in`:                             `getByText('Sign in')`,
		`text="Sign in"`:                           `locator('text="Sign in"')`,
		`internal:text="Sign in"s`:                 `getByText('Sign in', { exact: true })`,
		`internal:label="Email"i`:                  `getByLabel('Email')`,
		`internal:attr=[placeholder="Search"i]`:    `getByPlaceholder('Search')`,
		`internal:testid=[data-testid="go"s]`:      `getByTestId('go')`,
		`data-testid=go`:                           `getByTestId('go')`,
		`#todo-list li`:                            `locator('#todo-list li')`,
		`#todo-list >> role=listitem >> nth=1`:     `locator('#todo-list').getByRole('listitem').nth(1)`,
		`li >> internal:has-text="milk"i >> nth=0`: `locator('li').filter({ hasText: 'milk' }).first()`,
		`xpath=//p[@id='x']`:                       `locator('xpath=//p[@id=\'x\']')`,
		`e12`:                                      `locator('e12')`,
		`li:has-text("a >> b")`:                    `locator('li:has-text("a >> b")')`,
		`css=button.primary`:                       `locator('button.primary')`,
	} {
		if got := selectorCode(sel); got != want {
			t.Errorf("%s: %s, want %s", sel, got, want)
		}
	}
}
