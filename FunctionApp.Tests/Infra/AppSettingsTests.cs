using WidgetSigning.Audit;
using System.Globalization;
using System.Text.Json.Nodes;
using WidgetSigning.Http;
using WidgetSigning.Keys;

namespace FunctionApp.Tests.Infra;

/// <summary>
/// The app settings the compiled template sets, held against one source of truth: the options the app reads
/// (<see cref="AppOptionsCatalog"/>) and local.settings.sample.json. A setting renamed in code but not in infra fails here.
/// </summary>
public sealed class AppSettingsTests
{
    private static CompiledInfra Infra => CompiledInfra.Instance;

    private static IReadOnlyDictionary<string, string> Settings => Infra.AppSettings;

    private static IReadOnlyDictionary<string, string> Sample =>
        JsonNode.Parse(RepoFiles.ReadAllText("local.settings.sample.json"))!["Values"]!.AsObject()
            .ToDictionary(v => v.Key, v => (string)v.Value!, StringComparer.Ordinal);

    /// <summary>Connection names the app reads: from its trigger attributes and from options that name a connection.</summary>
    private static IReadOnlyList<string> ConnectionNames =>
        AppOptionsCatalog.AttributeConnections
            .Select(c => c.StartsWith('%') && c.EndsWith('%') && Settings.TryGetValue(c.Trim('%').Replace(":", "__", StringComparison.Ordinal), out var named) ? named : c)
            .Concat(Settings.Where(s => AppOptionsCatalog.InSection(s.Key, out _) && s.Key.EndsWith("Connection", StringComparison.Ordinal)).Select(s => s.Value))
            .Distinct(StringComparer.Ordinal)
            .ToList();

    [Fact]
    public void OptionsCatalog_FindsTheAppsSections()
    {
        // A guard on the reflection itself: were it to find nothing, the checks below could not fail.
        Assert.Contains("KeyVault", AppOptionsCatalog.Sections.Keys);
        Assert.Contains("Queues", AppOptionsCatalog.Sections.Keys);
        Assert.Contains("Signing", AppOptionsCatalog.Sections.Keys);
        Assert.True(AppOptionsCatalog.Defaults.Count > 10);
    }

    [Fact]
    public void AppSettings_InAnOptionsSection_AreAllPropertiesTheAppReads()
    {
        var unknown = Settings.Keys.Where(k => AppOptionsCatalog.InSection(k, out var known) && !known).ToList();

        Assert.True(unknown.Count == 0, $"infra sets settings no options class reads (renamed or removed in code?): {string.Join(", ", unknown)}");
    }

    [Fact]
    public void AppSettings_WithASection_BelongToTheAppsOptionsOrToAConnection()
    {
        // AzureFunctionsJobHost__…: host.json overrides (the in-process app's throttle), the host's section, not the app's.
        string[] connectionPrefixes = ["AzureWebJobsStorage", "AzureFunctionsJobHost", .. ConnectionNames];
        var strays = Settings.Keys
            .Where(k => k.Contains("__", StringComparison.Ordinal) && !AppOptionsCatalog.InSection(k, out _))
            .Where(k => !connectionPrefixes.Contains(k[..k.IndexOf("__", StringComparison.Ordinal)], StringComparer.Ordinal))
            .ToList();

        Assert.True(strays.Count == 0, $"infra sets sectioned settings the app has no options section for: {string.Join(", ", strays)}");
    }

    [Fact]
    public void LocalSettingsSample_InAnOptionsSection_AreAllPropertiesTheAppReads()
    {
        var unknown = Sample.Keys.Where(k => AppOptionsCatalog.InSection(k, out var known) && !known).ToList();

        Assert.True(unknown.Count == 0, $"local.settings.sample.json sets settings no options class reads: {string.Join(", ", unknown)}");
    }

    [Fact]
    public void AppSettings_SetEveryOptionWithoutADefault_ButNeverTheDevelopmentKey()
    {
        var required = AppOptionsCatalog.Defaults.Where(d => d.Value is null).Select(d => d.Key)
            .Where(k => !string.Equals(k, LocalKeyOptions.LocalKeySetting, StringComparison.OrdinalIgnoreCase))
            .Where(k => !string.Equals(k, AuditOptions.LocalSigningKeySetting, StringComparison.OrdinalIgnoreCase))
            .Where(k => k != "Auth:Authority"); // the local issuer's, refused in Azure

        Assert.All(required, k => Assert.True(Settings.ContainsKey(k.Replace(":", "__", StringComparison.Ordinal)), $"infra does not set {k}, which has no default"));
        Assert.DoesNotContain(LocalKeyOptions.LocalKeySetting.Replace(":", "__", StringComparison.Ordinal), Settings.Keys, StringComparer.OrdinalIgnoreCase);
        Assert.DoesNotContain(AuditOptions.LocalSigningKeySetting.Replace(":", "__", StringComparison.Ordinal), Settings.Keys, StringComparer.OrdinalIgnoreCase);
    }

    [Fact]
    public void AppSettings_ResourceNames_MatchTheSampleAndTheOptionDefaults()
    {
        var named = Settings.Where(s => AppOptionsCatalog.InSection(s.Key, out var known) && known && !s.Key.EndsWith("Connection", StringComparison.Ordinal))
            .Where(s => !s.Value.StartsWith('[')) // values that come from elsewhere in the deployment (vault URI, client id)
            .ToList();

        Assert.NotEmpty(named);
        Assert.All(named, s =>
        {
            var key = s.Key.Replace("__", ":", StringComparison.Ordinal);
            // The receivers a queue allows are the deployment's own list (a parameter); the sample allows its local ones.
            // So are the app registration's identity values (the sample names the local issuer's).
            if (key != "Queues:AllowedReceivers" && !key.StartsWith("Auth:", StringComparison.Ordinal) && Sample.TryGetValue(key, out var local))
            {
                Assert.True(local == s.Value, $"{key}: infra sets '{s.Value}', local.settings.sample.json '{local}'");
            }

            var optionDefault = AppOptionsCatalog.Defaults[key];
            if (optionDefault is string text)
            {
                Assert.True(text == s.Value, $"{key}: infra sets '{s.Value}', the option's default is '{text}'");
            }
        });
    }

    [Fact]
    public void RuntimeSettings_MatchTheSample()
    {
        foreach (var name in new[] { "FUNCTIONS_EXTENSION_VERSION", "FUNCTIONS_WORKER_RUNTIME", "FUNCTIONS_INPROC_NET8_ENABLED" })
        {
            Assert.Equal(Sample[name], Settings[name]);
        }
    }

    [Fact]
    public void RequestBodySizeLimit_OfTheHost_IsTheAppsBodyLimitPlusRoomForChunkFraming()
    {
        // The host's Kestrel counts chunk framing with the data, so a host limit equal to the app's
        // refused chunked envelopes under the app's limit; the host gets the app's default plus 1/128 for the framing.
        var bodyLimit = Convert.ToInt64(Assert.Single(AppOptionsCatalog.Defaults, d => d.Key == HttpOptions.MaxRequestBodyBytesSetting).Value, CultureInfo.InvariantCulture);

        Assert.Equal("16908288", Settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"]);
        Assert.Equal(bodyLimit + (bodyLimit / HttpOptions.ChunkFramingShare), long.Parse(Settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"], CultureInfo.InvariantCulture));
        Assert.Equal(new HttpOptions().HostBodyLimit, long.Parse(Settings["FUNCTIONS_REQUEST_BODY_SIZE_LIMIT"], CultureInfo.InvariantCulture));
    }

    [Fact]
    public void HostThrottle_OfTheInProcessApp_BoundsTheBindingsCopiesAsItsSampleDoes()
    {
        // The in-process HTTP binding copies a Content-Length body into a string before the memory budget sees it, so
        // the in-process app keeps the host's throttle in its app settings (host.json, shared with the isolated app,
        // sets none); its local settings sample matches.
        foreach (var name in new[] { "AzureFunctionsJobHost__extensions__http__maxConcurrentRequests", "AzureFunctionsJobHost__extensions__http__maxOutstandingRequests" })
        {
            Assert.Equal(Sample[name], Settings[name]);
        }

        Assert.Equal("8", Settings["AzureFunctionsJobHost__extensions__http__maxConcurrentRequests"]);
        Assert.Equal("64", Settings["AzureFunctionsJobHost__extensions__http__maxOutstandingRequests"]);
    }

    [Fact]
    public void AppSettings_NeverSelectTheDevelopmentEnvironment()
    {
        // The development signing key is accepted only in Development; nothing in infra may select it.
        Assert.DoesNotContain("AZURE_FUNCTIONS_ENVIRONMENT", Infra.Main.ToJsonString(), StringComparison.Ordinal);
        Assert.DoesNotContain("ASPNETCORE_ENVIRONMENT", Infra.Main.ToJsonString(), StringComparison.Ordinal);
        Assert.DoesNotContain("DOTNET_ENVIRONMENT", Infra.Main.ToJsonString(), StringComparison.Ordinal);
    }

    [Fact]
    public void HostStorage_UsesTheIdentityNotAKey()
    {
        Assert.Equal("managedidentity", Settings["AzureWebJobsStorage__credential"]);
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'identity'), '2025-04-01').outputs.clientId.value]", Settings["AzureWebJobsStorage__clientId"]);
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'storage'), '2025-04-01').outputs.hostStorageAccountName.value]", Settings["AzureWebJobsStorage__accountName"]);
        Assert.False(Settings.ContainsKey("AzureWebJobsStorage"));
    }

    [Fact]
    public void KeyVaultSettings_PointAtTheVaultAndSecretName_WithTheAppsIdentity()
    {
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'keyVault'), '2025-04-01').outputs.vaultUri.value]", Settings["KeyVault__VaultUri"]);
        Assert.Equal("widget-signing-key", Settings["KeyVault__SecretName"]);
        Assert.Equal(Settings["AzureWebJobsStorage__clientId"], Settings["KeyVault__ManagedIdentityClientId"]);
    }

    [Fact]
    public void Connections_TheAppReads_AreIdentityBased()
    {
        Assert.Contains("WidgetStorage", ConnectionNames);
        Assert.All(ConnectionNames, name =>
        {
            Assert.True(Sample.ContainsKey(name), $"local.settings.sample.json does not set connection '{name}'");
            Assert.False(Settings.ContainsKey(name), $"connection '{name}' is a connection string in Azure; it must be identity-based");
            Assert.Equal("managedidentity", Settings[$"{name}__credential"]);
            Assert.Equal(Settings["AzureWebJobsStorage__clientId"], Settings[$"{name}__clientId"]);
        });
    }

    [Fact]
    public void WidgetStorage_UsesTheDataAccountsQueueAndBlobEndpoints_WithTheNames5xReads()
    {
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'storage'), '2025-04-01').outputs.dataQueueServiceUri.value]", Settings["WidgetStorage__queueServiceUri"]);
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'storage'), '2025-04-01').outputs.dataBlobServiceUri.value]", Settings["WidgetStorage__blobServiceUri"]);
        var outputs = CompiledInfra.Template(Infra.Module("storage"))["outputs"]!;
        Assert.Equal("[reference(resourceId('Microsoft.Storage/storageAccounts', parameters('dataStorageAccountName')), '2026-06-01').primaryEndpoints.queue]", (string?)outputs["dataQueueServiceUri"]!["value"]);
        Assert.Equal("[reference(resourceId('Microsoft.Storage/storageAccounts', parameters('dataStorageAccountName')), '2026-06-01').primaryEndpoints.blob]", (string?)outputs["dataBlobServiceUri"]!["value"]);
    }

    [Fact]
    public void AppSettings_HoldNoKeyAndNoKeyVaultReference_SoTheSiteNeedsNothingResolvedAtCreation()
    {
        Assert.DoesNotContain(Settings.Values, v => v.Contains("@Microsoft.KeyVault", StringComparison.OrdinalIgnoreCase) || v.Contains("listKeys", StringComparison.OrdinalIgnoreCase) || v.Contains("AccountKey", StringComparison.OrdinalIgnoreCase));
        // No Azure Files content share: its setting takes only a connection string (an account key).
        Assert.DoesNotContain(Settings.Keys, k => k.StartsWith("WEBSITE_CONTENT", StringComparison.Ordinal) || k == "WEBSITE_SKIP_CONTENTSHARE_VALIDATION");
        Assert.Empty(Infra.ResourcesOfType("Microsoft.Storage/storageAccounts/fileServices/shares"));
        // The app runs from the package blob, which the platform fetches with the app's user-assigned identity.
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'storage'), '2025-04-01').outputs.packageBlobUrl.value]", Settings["WEBSITE_RUN_FROM_PACKAGE"]);
        Assert.Equal("[reference(resourceId('Microsoft.Resources/deployments', 'identity'), '2025-04-01').outputs.id.value]", Settings["WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID"]);
    }

    [Fact]
    public void AppSettings_HaveNoDuplicateNames()
    {
        var names = Infra.Resource("functionApp", "Microsoft.Web/sites")["properties"]!["siteConfig"]!["appSettings"]!.AsArray().Select(s => (string)s!["name"]!).ToList();

        Assert.Equal(names.Count, names.Distinct(StringComparer.OrdinalIgnoreCase).Count());
    }
}
