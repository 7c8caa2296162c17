using WidgetSigning.Storage;
using WidgetSigning.Queues;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Storage;

/// <summary>
/// The <c>WidgetStorage</c> connection as the 5.x extension reads it: a connection string, or an identity-based
/// connection (<c>__queueServiceUri</c>, <c>__blobServiceUri</c>, <c>__credential</c>, <c>__clientId</c>). The
/// identity path runs end to end against Azurite in OAuth mode over HTTPS: no account key anywhere.
/// </summary>
[Collection(AzuriteOAuthCollection.Name)]
public sealed class WidgetStorageClientFactoryTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private readonly AzuriteOAuthFixture _azurite;
    private readonly ITestOutputHelper _output;

    public WidgetStorageClientFactoryTests(AzuriteOAuthFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task Trigger_IdentityBasedConnectionThroughATokenCredential_SignsInlineAndClaimCheckMessages()
    {
        // Arrange: no connection string at all, for the app or for the host storage; only service URIs and an identity.
        var identity = new Dictionary<string, string?>
        {
            ["AzureWebJobsStorage"] = null,
            [QueueOptions.ConnectionSetting] = null,
            ["WidgetStorage:queueServiceUri"] = _azurite.QueueServiceUri.AbsoluteUri,
            ["WidgetStorage:blobServiceUri"] = _azurite.BlobServiceUri.AbsoluteUri,
            ["WidgetStorage:credential"] = "managedidentity",
            ["WidgetStorage:clientId"] = Guid.NewGuid().ToString(),
        };
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite, _output, appSettings: identity, storage: configuration => new WidgetStorageClientFactory(configuration, _azurite.Credential, _azurite.Transport));
        var small = Vector.Load("one-widget");
        var seed = Vector.Load("seed-3000-widgets");

        // Act
        var inline = await host.EnqueueAsync(small.Input);
        var claim = await host.EnqueueClaimCheckAsync("seed.json", seed.Input);
        var outputs = (await QueueFunctionHost.ReceiveAsync(host.Output, 2, Patience)).ToDictionary(o => o.Value<string>("messageId")!);

        // Assert: the trigger received over OAuth, the claim blob was read and the canonical blob written with the token.
        Assert.Equal(small.SignatureHex, outputs[inline].Value<string>("signature"));
        Assert.Equal(seed.SignatureHex, outputs[claim].Value<string>("signature"));
        Assert.Equal(seed.Canonical, await host.DownloadAsync(outputs[claim]["canonicalBlob"]!));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Contains("https://storage.azure.com/.default", ((StaticTokenCredential)_azurite.Credential).RequestedScopes);
    }

    [Fact]
    public async Task CreateQueueServiceClient_IdentityConnection_UsesBearerTokensNotAnAccountKey()
    {
        // Arrange: the identity settings, without a credential override, but with the test transport.
        var factory = new WidgetStorageClientFactory(Configuration(new()
        {
            ["WidgetStorage:queueServiceUri"] = _azurite.QueueServiceUri.AbsoluteUri,
            ["WidgetStorage:credential"] = "managedidentity",
        }), credential: _azurite.Credential, transport: _azurite.Transport);

        // Act
        var queue = factory.CreateQueueServiceClient(QueueOptions.ConnectionSetting).GetQueueClient("identity-probe");
        await queue.CreateIfNotExistsAsync();

        // Assert: a bearer-token client (no account key, so it cannot make SAS URIs).
        Assert.False(queue.CanGenerateSasUri);
        Assert.True((await queue.ExistsAsync()).Value);
    }

    [Theory]
    [InlineData(null, null, null, "The storage connection 'WidgetStorage' is not set")]
    [InlineData("ftp://x/", "managedidentity", null, "WidgetStorage__queueServiceUri must be an absolute https URI")]
    [InlineData("https://acct.queue.core.windows.net/", "secret", null, "WidgetStorage__credential must be 'managedidentity'")]
    [InlineData("https://acct.queue.core.windows.net/", null, null, "WidgetStorage__credential must be 'managedidentity'")]
    [InlineData("https://acct.queue.core.windows.net/", "managedidentity", "not-a-guid", "WidgetStorage__clientId must be the client id")]
    public void CreateQueueServiceClient_BadIdentitySettings_FailNamingTheSetting(string? uri, string? credential, string? clientId, string message)
    {
        // Arrange
        var factory = new WidgetStorageClientFactory(Configuration(new()
        {
            ["WidgetStorage:queueServiceUri"] = uri,
            ["WidgetStorage:credential"] = credential,
            ["WidgetStorage:clientId"] = clientId,
        }));

        // Act
        var error = Assert.Throws<InvalidOperationException>(() => factory.CreateQueueServiceClient(QueueOptions.ConnectionSetting));

        // Assert
        Assert.Contains(message, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void CreateClients_ManagedIdentityWithClientId_AddressTheConfiguredServices()
    {
        // Arrange
        var factory = new WidgetStorageClientFactory(Configuration(new()
        {
            ["WidgetStorage:queueServiceUri"] = "https://acct.queue.core.windows.net/",
            ["WidgetStorage:blobServiceUri"] = "https://acct.blob.core.windows.net/",
            ["WidgetStorage:credential"] = "managedidentity",
            ["WidgetStorage:clientId"] = Guid.NewGuid().ToString(),
        }));

        // Act
        var queues = factory.CreateQueueServiceClient(QueueOptions.ConnectionSetting);
        var blobs = factory.CreateBlobServiceClient(QueueOptions.ConnectionSetting);

        // Assert
        Assert.Equal("acct.queue.core.windows.net", queues.Uri.Host);
        Assert.Equal("acct.blob.core.windows.net", blobs.Uri.Host);
        Assert.False(queues.CanGenerateAccountSasUri);
    }

    [Fact]
    public void CreateQueueServiceClient_ConnectionString_UsesIt()
    {
        var factory = new WidgetStorageClientFactory(Configuration(new() { ["WidgetStorage"] = "UseDevelopmentStorage=true" }));

        var queues = factory.CreateQueueServiceClient(QueueOptions.ConnectionSetting);

        Assert.Equal(10001, queues.Uri.Port);
    }

    private static IConfiguration Configuration(Dictionary<string, string?> values) => new ConfigurationBuilder().AddInMemoryCollection(values).Build();
}
