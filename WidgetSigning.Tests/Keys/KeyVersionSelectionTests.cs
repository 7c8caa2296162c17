using System.Globalization;
using WidgetSigning.Keys;

namespace WidgetSigning.Tests.Keys;

/// <summary>
/// What each of a receiver's secret versions does at a moment, from the listed state alone (no vault): current, staged,
/// retiring, or nothing signs. A version is written <c>id on|off created nbf exp</c>, times in hours from now, <c>-</c> for none.
/// </summary>
public sealed class KeyVersionSelectionTests
{
    private static readonly DateTimeOffset Now = new(2026, 6, 1, 12, 0, 0, TimeSpan.Zero);
    private const int MaxStaged = 3;
    private const int Accepted = 2;
    private static readonly TimeSpan MaxAge = TimeSpan.FromDays(7);

    public static TheoryData<string, string[], string, string, string, string> Cases() => new()
    {
        // scenario, versions, current, staged, retiring (id@replaced-hours), refusal
        { "no version", [], "-", "", "", "the secret has no version" },
        { "one active version", ["v1 on -48 - -"], "v1", "", "", "" },
        { "newest wins", ["v1 on -48 - -", "v2 on -24 - -"], "v2", "", "v1@-24", "" },
        { "newest disabled fails closed", ["v1 on -48 - -", "v2 off -24 - -"], "v2", "", "v1@-24", "it is disabled" },
        { "disabled older never verifies", ["v1 off -48 - -", "v2 on -24 - -"], "v2", "", "", "" },
        { "expired older never verifies", ["v1 on -48 - -2", "v2 on -24 - -"], "v2", "", "", "" },
        { "expired current stays current", ["v1 on -48 - -", "v2 on -24 - -1"], "v2", "", "v1@-24", "" },
        { "staged beside current", ["v1 on -48 - -", "v2 on -1 5 -"], "v1", "v2", "", "" },
        { "only staged", ["v1 on -1 5 -"], "-", "v1", "", "no version is active yet (the newest is staged until 2026-06-01 17:00:00Z)" },
        { "disabled staged ignored", ["v1 on -48 - -", "v2 off -1 5 -"], "v1", "", "", "" },
        { "staged expiring before it starts ignored", ["v1 on -48 - -", "v2 on -1 5 -1"], "v1", "", "", "" },
        { "staged capped newest first", ["v1 on -48 - -", "v2 on -4 5 -", "v3 on -3 5 -", "v4 on -2 5 -", "v5 on -1 5 -"], "v1", "v5,v4,v3", "", "" },
        { "retiring capped", ["v1 on -96 - -", "v2 on -72 - -", "v3 on -48 - -", "v4 on -24 - -"], "v4", "", "v3@-24,v2@-48", "" },
        { "retiring past max age", ["v1 on -400 - -", "v2 on -200 - -"], "v2", "", "", "" },
        { "retiring until max age of successor", ["v1 on -400 - -", "v2 on -300 - -", "v3 on -24 - -"], "v3", "", "v2@-24", "" },
        { "replaced when successor's nbf passed", ["v1 on -48 - -", "v2 on -30 -6 -"], "v2", "", "v1@-6", "" },
        { "newer created but not yet active is not retiring", ["v1 on -48 - -", "v2 on -1 5 -"], "v1", "v2", "", "" },
        { "version without creation time ignored", ["v1 on -48 - -", "v2 on none - -"], "v1", "", "", "" },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public void Select_ListedVersions_EachGetsItsRole(string scenario, string[] versions, string current, string staged, string retiring, string refusal)
    {
        // Arrange
        var listed = versions.Select(Parse).ToList();

        // Act
        var selection = KeyVersionSelection.Select(listed, Now, MaxStaged, Accepted, MaxAge);

        // Assert
        Assert.True(current == (selection.Current?.Version ?? "-"), $"{scenario}: current {selection.Current?.Version ?? "-"}");
        Assert.Equal(staged, string.Join(',', selection.Staged.Select(v => v.Version)));
        Assert.Equal(retiring, string.Join(',', selection.Retiring.Select(r => $"{r.Version.Version}@{Hours(r.ReplacedOn)}")));
        Assert.Equal(refusal, selection.Refusal ?? string.Empty);
    }

    [Fact]
    public void Select_VersionsInAnyOrder_SameSelection()
    {
        // Arrange
        string[] versions = ["v1 on -96 - -", "v2 on -72 - -", "v3 on -48 - -", "v4 on -1 5 -"];
        var forward = versions.Select(Parse).ToList();
        var backward = Enumerable.Reverse(forward).ToList();

        // Act
        var one = KeyVersionSelection.Select(forward, Now, MaxStaged, Accepted, MaxAge);
        var other = KeyVersionSelection.Select(backward, Now, MaxStaged, Accepted, MaxAge);

        // Assert
        Assert.Equal(one.Current, other.Current);
        Assert.Equal(one.Staged, other.Staged);
        Assert.Equal(one.Retiring, other.Retiring);
    }

    private static KeyVersion Parse(string spec)
    {
        var parts = spec.Split(' ');
        return new KeyVersion(parts[0], parts[1] == "on", At(parts[2]), At(parts[3]), At(parts[4]));
    }

    private static DateTimeOffset? At(string hours) =>
        hours is "-" or "none" ? null : Now.AddHours(int.Parse(hours, CultureInfo.InvariantCulture));

    private static int Hours(DateTimeOffset at) => (int)Math.Round((at - Now).TotalHours);
}
