package install

import (
	"slices"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/suites/harness"
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/levels"
)

// describeLocale checks that the host's catalog speaks its locale (spec
// 000, Identity and presentation: "displayNameI18n: locale -> displayName
// overrides"; docs/decisions.md, "Localised display names").
func describeLocale(tc *harness.TestContext) {
	Describe("Installable: the catalog in the host's locale", func() {
		DescribeTable("shows the displayName for the host's locale on the app's catalog row",
			func(locale, want string) {
				dir := tc.Fixture("full-app")
				names := harness.MapOf(tc.Oracle(dir).Manifest["displayNameI18n"])
				if want == "" {
					want = tc.Oracle(dir).Manifest["displayName"].(string)
				} else {
					want = names[locale].(string)
				}
				p := tc.DefaultConfigure()
				p.Locale = locale
				tc.Configure(p)
				app := tc.Install(dir, tc.ReleaseOf(dir))
				row, ok := tc.ListedApp(app.AppID)
				if !ok {
					tc.Errorf("app/list does not show %s, just installed", app.AppID)
				}
				if row.DisplayName != want {
					tc.Failf("with locale %s, app/list shows %s as %q; the manifest's displayNameI18n makes it %q", locale, app.AppID, row.DisplayName, want)
				}
			},
			Entry("a locale the manifest overrides", tc.Req("CAT-DISPLAYNAME-I18N"), "zh-CN", "override"),
			Entry("a locale it does not override (the default displayName)", tc.Req("CAT-DISPLAYNAME-I18N"), "ja-JP", ""),
			// Two tags of one language are two locales: the override the map
			// gives zh-CN is not the name of zh-TW or zh-HK.
			Entry("another region of the language the manifest overrides (zh-TW: the default displayName, not zh-CN's)", tc.Req("CAT-DISPLAYNAME-I18N", levels.ConfusableIdentity), "zh-TW", ""),
			Entry("a third region of that language (zh-HK: the default displayName, not zh-CN's)", tc.Req("CAT-DISPLAYNAME-I18N", levels.ConfusableIdentity), "zh-HK", ""),
		)

		// A host that binds the name once (at install, or at the first
		// host/configure) shows an old one after a change: the locale
		// changed through host/configure, or the release changed by an
		// update whose displayNameI18n says otherwise.
		It("shows the displayName of the installed release for the locale configured now, after the locale changes and after an update",
			tc.Req("CAT-DISPLAYNAME-I18N", levels.ChangeBetweenReads, levels.EveryTransition), func() {
				dir := tc.Fixture("full-app")
				names := harness.MapOf(tc.Oracle(dir).Manifest["displayNameI18n"])
				override, plain := names["zh-CN"].(string), tc.Oracle(dir).Manifest["displayName"].(string)
				app := tc.Install(dir, tc.ReleaseOf(dir))
				expectName := func(locale, want, when string) {
					GinkgoHelper()
					p := tc.DefaultConfigure()
					p.Locale = locale
					tc.Configure(p)
					row, ok := tc.ListedApp(app.AppID)
					if !ok {
						tc.Errorf("app/list does not show %s, installed by this spec", app.AppID)
					}
					if row.DisplayName != want {
						tc.Failf("%s, with locale %s, app/list shows %s as %q; the installed release's displayNameI18n makes it %q", when, locale, app.AppID, row.DisplayName, want)
					}
				}
				expectName("zh-CN", override, "after the install")
				expectName("ja-JP", plain, "after host/configure changed the locale")
				expectName("zh-CN", override, "after host/configure changed the locale back")
				// A host without app/update (installable asks none) never
				// replaces a release: the names followed each change there is.
				if !slices.Contains(tc.Host().Hello().Methods, protocol.MethodUpdate) {
					return
				}
				newer := override + " 2"
				tc.UpdatedDir(app.AppID, func() string {
					next := tc.Fixture("full-app")
					harness.ReplaceIn(next, "APP.md", "zh-CN: "+override, "zh-CN: "+newer)
					return next
				})
				expectName("zh-CN", newer, "after app/update to a release naming it otherwise")
				expectName("ja-JP", plain, "after app/update and a change of the locale")
			})
	})
}
