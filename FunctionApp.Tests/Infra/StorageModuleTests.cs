using FunctionApp.Tests.Infra.Bicep;

namespace FunctionApp.Tests.Infra;

/// <summary>Source checks of infra/modules/storage.bicep.</summary>
public sealed class StorageModuleTests
{
    private static BicepFile Module => InfraFiles.Module("storage");

    [Fact]
    public void Queues_InputPoisonOutputAndRejected_AreCreatedOnTheDataAccount()
    {
        var queues = Module.ResourcesOfType("Microsoft.Storage/storageAccounts/queueServices/queues")
            .ToDictionary(q => q.Name, q => q.Body["name"].Text, StringComparer.Ordinal);

        Assert.Equal(
            new Dictionary<string, string>(StringComparer.Ordinal)
            {
                ["inputQueue"] = "inputQueueName",
                ["poisonQueue"] = "poisonQueueName",
                ["outputQueue"] = "outputQueueName",
                ["rejectedQueue"] = "rejectedQueueName",
            },
            queues);
        Assert.Equal("${inputQueueName}-poison", ((BicepString)Module.Var("poisonQueueName").Value!).Raw);
        Assert.Equal("dataStorage", Module.Resource("queueService").Body["parent"].Text);
        Assert.All(Module.ResourcesOfType("Microsoft.Storage/storageAccounts/queueServices/queues"), q => Assert.Equal("queueService", q.Body["parent"].Text));
        var output = Assert.IsType<BicepObject>(Module.Output("queueNames").Value);
        Assert.Equal("{input:inputQueue.name,poison:poisonQueue.name,output:outputQueue.name,rejected:rejectedQueue.name}", output.Text);
    }

    [Theory]
    [InlineData("claimCheckContainer", "claimCheckContainerName", "claimCheck")]
    [InlineData("canonicalContainer", "canonicalContainerName", "canonical")]
    [InlineData("rejectedContainer", "rejectedContainerName", "rejected")]
    public void Containers_AreCreatedPrivateOnTheDataAccount(string symbol, string nameParam, string outputKey)
    {
        var container = Module.Resource(symbol);

        Assert.Equal("Microsoft.Storage/storageAccounts/blobServices/containers", container.ResourceType);
        Assert.Equal(nameParam, container.Body["name"].Text);
        Assert.Equal("None", InfraFiles.Literal(container.Body.Path("properties.publicAccess")));
        Assert.Equal("blobService", container.Body["parent"].Text);
        Assert.Equal("dataStorage", Module.Resource("blobService").Body["parent"].Text);
        Assert.Equal($"{symbol}.name", Assert.IsType<BicepObject>(Module.Output("containerNames").Value)[outputKey].Text);
    }

    [Theory]
    [InlineData("hostStorage")]
    [InlineData("dataStorage")]
    public void Accounts_AreHttpsOnlyTls12AndPrivate(string symbol)
    {
        var properties = Module.Resource(symbol).Body.Object("properties");

        Assert.Equal("TLS1_2", InfraFiles.Literal(properties["minimumTlsVersion"]));
        Assert.Equal("true", properties["supportsHttpsTrafficOnly"].Text);
        Assert.Equal("false", properties["allowBlobPublicAccess"].Text);
        Assert.Equal("true", properties["defaultToOAuthAuthentication"].Text);
    }

    [Fact]
    public void SharedKeys_StayOnOnlyForTheContentShareAndTheQueueConnection_AndSaySo()
    {
        Assert.Equal("true", Module.Resource("hostStorage").Body.Path("properties.allowSharedKeyAccess").Text);
        Assert.Equal("true", Module.Resource("dataStorage").Body.Path("properties.allowSharedKeyAccess").Text);
        Assert.Contains("content share", Module.Source, StringComparison.Ordinal);
        Assert.Contains("set allowSharedKeyAccess to false", Module.Source, StringComparison.Ordinal);
    }
}
