using System.Net;
using System.Security.Cryptography;
using System.Text.Json;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// tools/LocalHost as npm start runs it, in its own process on the app's build output: it refuses an app the real
/// host would refuse, and otherwise serves /api/sign and /api/verify over a socket through the HTTP extension's router.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed class LocalHostTests(AzuriteFixture azurite)
{
    private static readonly TimeSpan Startup = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task LocalHost_StorageExtensionBelowTheHostsMinimum_RefusesToStartNamingIt()
    {
        // Arrange: the build output with the 4.0.2 storage extension the real host refuses.
        var copy = AppBuildOutput.CopyToTemp();
        try
        {
            DoctoredExtension.Add(
                Path.Combine(copy.FullName, "bin"),
                "Microsoft.Azure.WebJobs.Extensions.Storage",
                "Microsoft.Azure.WebJobs.Extensions.Storage.AzureStorageWebJobsStartup",
                "4.0.2.0");
            await using var host = LocalHostProcess.Start(copy.FullName, Environment(azurite));

            // Act
            var exitCode = await host.ExitCodeAsync(Startup);

            // Assert
            Assert.Equal(3, exitCode);
            Assert.StartsWith("LocalHost: the app's build output on the WebJobs SDK host", host.Output, StringComparison.Ordinal);
            Assert.Contains("function keys not enforced", host.Output.Split('\n')[0], StringComparison.Ordinal);
            Assert.Contains("would refuse this app; not starting", host.Error, StringComparison.Ordinal);
            Assert.Contains("ExtensionStartupType AzureStorageWebJobsStartup from assembly 'Microsoft.Azure.WebJobs.Extensions.Storage, Version=4.0.2.0", host.Error, StringComparison.Ordinal);
            Assert.DoesNotContain("LocalHost ready", host.Output, StringComparison.Ordinal);
        }
        finally
        {
            copy.Delete(recursive: true);
        }
    }

    [Fact]
    public async Task LocalHost_BuildOutput_SignsAndVerifiesOverASocketThroughTheRouterAndAWrongMethodIs405WithAllow()
    {
        // Arrange (red until the app passes the host's start-up checks: the local host refuses it otherwise)
        await using var host = LocalHostProcess.Start(AppBuildOutput.Path, Environment(azurite));
        var baseUri = await host.ReadyAsync(Startup);
        using var client = new HttpClient { BaseAddress = baseUri };
        var vector = Path.Combine(AppContext.BaseDirectory, "TestData", "vectors", "one-widget");
        var body = await File.ReadAllBytesAsync(Path.Combine(vector, "input.json"));

        // Act
        using var sign = await client.PostAsync("/api/sign?output=canonical", Json(body));
        var canonical = await sign.Content.ReadAsByteArrayAsync();
        var signature = sign.Headers.GetValues("X-Signature").Single();
        using var verify = new HttpRequestMessage(HttpMethod.Post, "/api/verify") { Content = Json(body) };
        verify.Headers.Add("X-Signature", signature);
        using var verified = await client.SendAsync(verify);
        using var wrongMethod = await client.GetAsync("/api/sign");
        using var wrongVerifyMethod = await client.PutAsync("/api/verify", Json(body));
        using var wrongKeysMethod = await client.PostAsync("/api/keys", Json(body));
        using var unknown = await client.GetAsync("/api/sign-everything");
        var pool = JsonDocument.Parse(await client.GetStringAsync("/local/stream-pool")).RootElement;

        // Assert
        Assert.Equal(HttpStatusCode.OK, sign.StatusCode);
        Assert.Equal(await File.ReadAllBytesAsync(Path.Combine(vector, "canonical.json")), canonical);
        Assert.Equal(Convert.ToHexString(HMACSHA256.HashData(SampleKey(), canonical)).ToLowerInvariant(), signature);
        Assert.Equal(HttpStatusCode.OK, verified.StatusCode);
        Assert.Contains("\"valid\":true", await verified.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        Assert.Equal((HttpStatusCode.MethodNotAllowed, "POST"), (wrongMethod.StatusCode, string.Join(",", wrongMethod.Content.Headers.Allow)));
        Assert.Equal((HttpStatusCode.MethodNotAllowed, "POST"), (wrongVerifyMethod.StatusCode, string.Join(",", wrongVerifyMethod.Content.Headers.Allow)));
        Assert.Equal((HttpStatusCode.MethodNotAllowed, "GET"), (wrongKeysMethod.StatusCode, string.Join(",", wrongKeysMethod.Content.Headers.Allow)));
        Assert.False(wrongMethod.Headers.Contains("X-Signature"));
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Equal(0, pool.GetProperty("smallPoolInUseBytes").GetInt64() + pool.GetProperty("largePoolInUseBytes").GetInt64());
    }

    private static ByteArrayContent Json(byte[] body) =>
        new(body) { Headers = { ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json") } };

    private static byte[] SampleKey()
    {
        using var sample = JsonDocument.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "local.settings.sample.json")));
        return Convert.FromBase64String(sample.RootElement.GetProperty("Values").GetProperty("Signing:LocalKey").GetString()!);
    }

    private static Dictionary<string, string> Environment(AzuriteFixture azurite) => new()
    {
        ["AzureWebJobsStorage"] = azurite.ConnectionString,
        ["WidgetStorage"] = azurite.ConnectionString,
    };
}
