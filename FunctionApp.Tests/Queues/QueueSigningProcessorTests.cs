using System.Text;
using FunctionApp.Queues;
using FunctionApp.Signing;
using FunctionApp.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Azure.Storage;
using Microsoft.Azure.Storage.Blob;

namespace FunctionApp.Tests.Queues;

/// <summary>The host-independent processor against Azurite, wired by the same registration the app uses.</summary>
[Collection(AzuriteCollection.Name)]
public sealed class QueueSigningProcessorTests
{
    private readonly AzuriteFixture _azurite;

    public QueueSigningProcessorTests(AzuriteFixture azurite)
    {
        _azurite = azurite;
    }

    [Theory]
    [InlineData(0, false)]
    [InlineData(QueueOptions.MaxInlineCanonicalBytes, true)]
    public async Task SignAsync_InlineThreshold_DecidesInlineOrBlob(int threshold, bool inline)
    {
        // Arrange
        var (processor, names) = Create(new() { ["Queues:InlineCanonicalMaxBytes"] = threshold.ToString(System.Globalization.CultureInfo.InvariantCulture) });
        var vector = Vector.Load("one-widget");

        // Act
        var signed = await processor.SignAsync(new SigningQueueMessage("m1", 1, null, vector.Input), Container(names.WidgetClaimsContainer), Container(names.WidgetCanonicalContainer), CancellationToken.None);

        // Assert
        Assert.Equal(vector.SignatureHex, signed.Signature);
        Assert.Equal(inline, signed.CanonicalBase64 is not null);
        Assert.Equal(!inline, signed.CanonicalBlob is not null);
        if (!inline)
        {
            Assert.Equal(new BlobReference(names.WidgetCanonicalContainer, "m1.json"), signed.CanonicalBlob);
            Assert.Equal(vector.Canonical, await DownloadAsync(signed.CanonicalBlob!));
        }
    }

    [Fact]
    public async Task SignAsync_ClaimBlobOverTheLimit_IsRejectedNamingTheSetting()
    {
        // Arrange
        var (processor, names) = Create(new() { ["Queues:MaxClaimCheckBytes"] = "1000" });
        var seed = Vector.Load("seed-3000-widgets");
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlockBlobReference("big.json").UploadFromByteArrayAsync(seed.Input, 0, seed.Input.Length);
        var message = new SigningQueueMessage("m2", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"big.json\"}}"));

        // Act
        var error = await Assert.ThrowsAsync<MessageRejectedException>(() => processor.SignAsync(message, container, Container(names.WidgetCanonicalContainer), CancellationToken.None));

        // Assert
        Assert.Contains("Queues:MaxClaimCheckBytes", error.Message, StringComparison.Ordinal);
        Assert.Equal("$.claimCheck.blob", error.JsonPath);
    }

    [Fact]
    public async Task SignAsync_SeedByClaimCheck_ReturnsEveryPooledStream()
    {
        // Arrange
        var (processor, names, services) = CreateWithServices(new());
        var seed = Vector.Load("seed-3000-widgets");
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlockBlobReference("seed.json").UploadFromByteArrayAsync(seed.Input, 0, seed.Input.Length);
        var pool = services.GetRequiredService<Microsoft.IO.RecyclableMemoryStreamManager>();
        var message = new SigningQueueMessage("m3", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"seed.json\"}}"));

        // Act
        var signed = await processor.SignAsync(message, container, Container(names.WidgetCanonicalContainer), CancellationToken.None);

        // Assert: the blob went through the pool and every stream went back.
        Assert.Equal(seed.SignatureHex, signed.Signature);
        Assert.Equal(seed.Canonical, await DownloadAsync(signed.CanonicalBlob!));
        Assert.Equal(0, pool.SmallPoolInUseSize);
        Assert.True(pool.SmallPoolFreeSize >= seed.Input.Length, "the claim blob should have been read into pooled blocks");
        Assert.Equal(0, pool.LargePoolInUseSize);
    }

    private (QueueSigningProcessor Processor, QueueNames Names) Create(Dictionary<string, string?> settings)
    {
        var (processor, names, _) = CreateWithServices(settings);
        return (processor, names);
    }

    private (QueueSigningProcessor Processor, QueueNames Names, ServiceProvider Services) CreateWithServices(Dictionary<string, string?> settings)
    {
        var prefix = "p" + Guid.NewGuid().ToString("N")[..12];
        var names = new QueueNames
        {
            WidgetClaimsContainer = prefix + "-claims",
            WidgetCanonicalContainer = prefix + "-canonical",
            WidgetRejectedContainer = prefix + "-rejected",
        };
        settings["AzureWebJobsStorage"] = _azurite.ConnectionString;
        settings["Signing:LocalKey"] = Vector.KeyBase64;
        settings["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        settings["WidgetClaimsContainer"] = names.WidgetClaimsContainer;
        settings["WidgetCanonicalContainer"] = names.WidgetCanonicalContainer;
        settings["WidgetRejectedContainer"] = names.WidgetRejectedContainer;
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var services = new ServiceCollection()
            .AddLogging()
            .AddSingleton<IConfiguration>(configuration)
            .AddWidgetSigning(configuration)
            .AddWidgetQueueSigning(configuration)
            .BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true });
        return (services.GetRequiredService<QueueSigningProcessor>(), names, services);
    }

    private CloudStorageAccount Account() => CloudStorageAccount.Parse(_azurite.ConnectionString);

    private CloudBlobContainer Container(string name) => Account().CreateCloudBlobClient().GetContainerReference(name);

    private async Task<byte[]> DownloadAsync(BlobReference reference)
    {
        using var buffer = new MemoryStream();
        await Account().CreateCloudBlobClient().GetContainerReference(reference.Container).GetBlockBlobReference(reference.Blob).DownloadToStreamAsync(buffer);
        return buffer.ToArray();
    }
}
