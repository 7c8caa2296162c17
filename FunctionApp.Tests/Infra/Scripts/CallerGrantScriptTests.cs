namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// infra/scripts/caller-grant.sh against a fake az: each command's exact az invocation on the grants table (login auth,
/// never a key), a client id resolved to its service principal's object id, and every malformed argument refused with
/// a message naming it before az runs.
/// </summary>
public sealed class CallerGrantScriptTests : IDisposable
{
    private const string Account = "stdprodabc123";
    private const string Caller = "7a1e0000-0000-4000-8000-00000000000c";
    private readonly FakeAzureCli _az = new();

    [Fact]
    public async Task Grant_CallerAndTwoReceivers_InsertsOneEntityPerReceiver_WithWhoAndWhen()
    {
        // Act
        var run = await RunAsync([], "grant", "--account", Account, "--caller", Caller.ToUpperInvariant(), "--receiver", "default", "--receiver", "partner-a");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        var inserts = _az.Calls.Where(c => c.StartsWith("storage entity insert ", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, inserts.Count);
        foreach (var (insert, receiver) in inserts.Zip(["default", "partner-a"]))
        {
            // The object id lower-cased: tokens carry oid so, and the app looks grants up by it.
            Assert.Matches(
                $"^storage entity insert --auth-mode login --account-name {Account} --table-name callergrants --if-exists replace --output none --entity PartitionKey={Caller} RowKey={receiver} GrantedBy=operator@contoso.example GrantedAt=\\d{{4}}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ GrantedAt@odata.type=Edm.DateTime$",
                insert);
            Assert.Contains($"granted: caller {Caller} may sign for receiver {receiver}", run.Output, StringComparison.Ordinal);
        }

        Assert.Contains("account show --query user.name --output tsv", _az.Calls);
        Assert.DoesNotContain(_az.Calls, c => c.Contains("--account-key", StringComparison.Ordinal) || c.Contains("--connection-string", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Grant_ClientId_ResolvesTheServicePrincipalsObjectId_AndGrantsThat()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_SP_ID", "11111111-2222-3333-4444-555555555555")], "grant", "--account", Account, "--client-id", "7a1e0000-0000-4000-8000-00000000000d", "--receiver", "partner-b");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal("ad sp show --id 7a1e0000-0000-4000-8000-00000000000d --query id --output tsv", _az.Calls[0]);
        var insert = Assert.Single(_az.Calls, c => c.StartsWith("storage entity insert ", StringComparison.Ordinal));
        Assert.Contains("--entity PartitionKey=11111111-2222-3333-4444-555555555555 RowKey=partner-b ", insert, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Grant_ClientIdWithoutAServicePrincipal_StopsWithoutWriting()
    {
        // Act
        var run = await RunAsync([], "grant", "--account", Account, "--client-id", "7a1e0000-0000-4000-8000-00000000000d", "--receiver", "partner-b");

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("no service principal for client id 7a1e0000-0000-4000-8000-00000000000d", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(_az.Calls, c => c.StartsWith("storage entity", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Revoke_DeletesEachEntity_AndSaysWithinWhatTimeItStops()
    {
        // Act
        var run = await RunAsync([], "revoke", "--account", Account, "--caller", Caller, "--receiver", "partner-a");

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal([$"storage entity delete --auth-mode login --account-name {Account} --table-name callergrants --partition-key {Caller} --row-key partner-a --output none"], _az.Calls);
        Assert.Contains("within Grants:CacheDuration (1 minute by default)", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task List_OneCaller_QueriesItsPartition_AndPrintsTheRows()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_ENTITIES", $"{Caller}\tpartner-a\toperator@contoso.example\t2026-11-27T01:00:00+00:00")], "list", "--account", Account, "--caller", Caller);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal([$"storage entity query --auth-mode login --account-name {Account} --table-name callergrants --filter PartitionKey eq '{Caller}' --query items[].[PartitionKey,RowKey,GrantedBy,GrantedAt] --output tsv"], _az.Calls);
        Assert.Contains($"{Caller}\tpartner-a\toperator@contoso.example", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task List_NoCaller_QueriesTheWholeTable()
    {
        // Act
        var run = await RunAsync([], "list", "--account", Account);

        // Assert
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal([$"storage entity query --auth-mode login --account-name {Account} --table-name callergrants --query items[].[PartitionKey,RowKey,GrantedBy,GrantedAt] --output tsv"], _az.Calls);
    }

    [Fact]
    public async Task Grant_TableRefusesTheOperator_FailsWithAzsMessage()
    {
        // Act
        var run = await RunAsync([("FAKE_AZ_ENTITY", "forbidden")], "grant", "--account", Account, "--caller", Caller, "--receiver", "partner-a");

        // Assert
        Assert.NotEqual(0, run.ExitCode);
        Assert.Contains("AuthorizationPermissionMismatch", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("granted:", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("must be 3-24 lower-case letters and digits", "grant", "--account", "StdProd", "--caller", Caller, "--receiver", "default")]
    [InlineData("must be 3-24 lower-case letters and digits", "grant", "--account", "st-prod", "--caller", Caller, "--receiver", "default")]
    [InlineData("must be 3-24 lower-case letters and digits", "list", "--account", "averyveryverylongaccountname1")]
    [InlineData("--account <storage account> is required", "grant", "--caller", Caller, "--receiver", "default")]
    [InlineData("--caller must be an object id, a GUID", "grant", "--account", Account, "--caller", "someone@contoso.example", "--receiver", "default")]
    [InlineData("--caller must be an object id, a GUID", "grant", "--account", Account, "--caller", "7a1e0000-0000-4000-8000-00000000000c' or PartitionKey ne '", "--receiver", "default")]
    [InlineData("--caller must be an object id, a GUID", "list", "--account", Account, "--caller", "x' or 'a' eq 'a")]
    [InlineData("--client-id must be a client (application) id, a GUID", "grant", "--account", Account, "--client-id", "api://widget", "--receiver", "default")]
    [InlineData("give --caller or --client-id, not both", "grant", "--account", Account, "--caller", Caller, "--client-id", Caller, "--receiver", "default")]
    [InlineData("grant needs --caller <object-id> or --client-id <app-id>", "grant", "--account", Account, "--receiver", "default")]
    [InlineData("grant needs at least one --receiver <id>", "grant", "--account", Account, "--caller", Caller)]
    [InlineData("revoke needs at least one --receiver <id>", "revoke", "--account", Account, "--caller", Caller)]
    [InlineData("must be 1-63 characters of a-z, 0-9 and '-'", "grant", "--account", Account, "--caller", Caller, "--receiver", "Partner-A")]
    [InlineData("must be 1-63 characters of a-z, 0-9 and '-'", "grant", "--account", Account, "--caller", Caller, "--receiver", "-partner")]
    [InlineData("must be 1-63 characters of a-z, 0-9 and '-'", "grant", "--account", Account, "--caller", Caller, "--receiver", "default", "--receiver", "a234567890123456789012345678901234567890123456789012345678901234")]
    [InlineData("must be 1-63 characters of a-z, 0-9 and '-'", "revoke", "--account", Account, "--caller", Caller, "--receiver", "")]
    [InlineData("--receiver is only for grant and revoke", "list", "--account", Account, "--receiver", "default")]
    [InlineData("--account given twice", "list", "--account", Account, "--account", "other")]
    [InlineData("--receiver needs a value", "grant", "--account", Account, "--caller", Caller, "--receiver")]
    [InlineData("unexpected argument 'partner-a'", "grant", "--account", Account, "--caller", Caller, "partner-a")]
    [InlineData("unknown command 'add'", "add", "--account", Account)]
    public async Task Argument_Malformed_IsRefusedWithItsNameBeforeAzRuns(string message, params string[] arguments)
    {
        // Act
        var run = await RunAsync([], arguments);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains(message, run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    [Fact]
    public async Task Grant_MoreReceiversThanTheBound_IsRefusedBeforeAzRuns()
    {
        // Arrange
        var arguments = new List<string> { "grant", "--account", Account, "--caller", Caller };
        for (var i = 0; i < 65; i++)
        {
            arguments.AddRange(["--receiver", $"r{i}"]);
        }

        // Act
        var run = await RunAsync([], [.. arguments]);

        // Assert
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("at most 64 --receiver per call", run.Error, StringComparison.Ordinal);
        Assert.Empty(_az.Calls);
    }

    public void Dispose() => _az.Dispose();

    private Task<ScriptRun> RunAsync((string Name, string Value)[] settings, params string[] arguments) =>
        ScriptRun.RunAsync("caller-grant.sh", _az.Environment(settings), arguments);
}
