namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/lock-audit-policy.sh against a fake az: it locks the audit container's immutability policy with the
/// policy's ETag, only when the policy is exactly what the template declares, and leaves a locked policy alone (a lock
/// cannot be undone, and a locked policy can only be extended).
/// </summary>
public sealed class LockAuditPolicyScriptTests : IDisposable
{
    private readonly FakeAzureCli _az = new();

    [Fact]
    public async Task Run_UnlockedPolicyAsDeclared_LocksItWithItsEtag()
    {
        var run = await RunAsync();

        Assert.True(run.ExitCode == 0, run.Error);
        var lockCall = Assert.Single(_az.Calls, c => c.StartsWith("storage container immutability-policy lock ", StringComparison.Ordinal));
        Assert.Contains("--resource-group rg-test --account-name stdtest --container-name widget-audit", lockCall, StringComparison.Ordinal);
        Assert.Contains("--if-match \"8dcafe0001\"", lockCall, StringComparison.Ordinal);
        Assert.Contains("Locked the immutability policy", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_PolicyLockedAlready_LeavesItUnchanged()
    {
        var run = await RunAsync(("FAKE_AZ_POLICY", "locked"));

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal));
        Assert.Contains("locked already", run.Output, StringComparison.Ordinal);
        Assert.Equal(string.Empty, run.Error);
    }

    [Fact]
    public async Task Run_LockedWithAnotherPeriod_LeavesIt_AndSaysExtendingIsAPersonsStep()
    {
        var run = await RunAsync(("FAKE_AZ_POLICY", "locked-shorter"));

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal) || c.Contains("immutability-policy extend", StringComparison.Ordinal));
        Assert.Contains("az storage container immutability-policy extend", run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("wrong-period", "30 days")]
    [InlineData("no-append", "allowProtectedAppendWrites=false")]
    public async Task Run_PolicyNotAsDeclared_RefusesToLock(string policy, string reason)
    {
        var run = await RunAsync(("FAKE_AZ_POLICY", policy));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("Refusing to lock", run.Error, StringComparison.Ordinal);
        Assert.Contains(reason, run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Run_NoPolicyYet_FailsWithoutLocking()
    {
        var run = await RunAsync(("FAKE_AZ_POLICY", "none"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("no immutability policy to lock", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Run_CannotReadThePolicy_FailsWithoutLocking()
    {
        var run = await RunAsync(("FAKE_AZ_POLICY", "error"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("AuthorizationFailed", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("immutability-policy lock", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Run_LockRefused_FailsNamingTheError()
    {
        var run = await RunAsync(("FAKE_AZ_LOCK", "error"));

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("incorrect etag", run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("-1")]
    [InlineData("a year")]
    public async Task Run_RetentionNotADayCount_FailsBeforeAnyCall(string days)
    {
        var run = await ScriptRun.RunAsync("lock-audit-policy.sh", _az.Environment(), "rg-test", "stdtest", "widget-audit", days);

        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("retention-days", run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    [Fact]
    public async Task Run_Twice_LocksOnceThenLeavesTheLockedPolicy()
    {
        // Arrange, Act: the same run twice against one fake, whose policy the first run's lock changed.
        var first = await RunAsync();
        var second = await RunAsync();

        // Assert
        Assert.Equal(0, first.ExitCode);
        Assert.Equal(0, second.ExitCode);
        Assert.Single(_az.Calls, c => c.StartsWith("storage container immutability-policy lock ", StringComparison.Ordinal));
        Assert.Contains("locked already", second.Output, StringComparison.Ordinal);
    }

    public void Dispose() => _az.Dispose();

    private Task<ScriptRun> RunAsync(params (string Name, string Value)[] settings) =>
        ScriptRun.RunAsync("lock-audit-policy.sh", _az.Environment(settings), "rg-test", "stdtest", "widget-audit", "365");
}
