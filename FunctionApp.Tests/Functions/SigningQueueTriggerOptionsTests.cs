using FunctionApp.Functions.QueueTrigger;
using FunctionApp.Queues;
using FunctionApp.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace FunctionApp.Tests.Functions;

public sealed class SigningQueueTriggerOptionsTests
{
    [Fact]
    public void ShippedHostJson_QueueSettings_BindAsTheFunctionsHostWouldAndValidate()
    {
        // Arrange: the host puts host.json under AzureFunctionsJobHost, as QueueFunctionHost does.
        var hostJson = new ConfigurationBuilder().AddJsonFile(Path.Combine(RepoRoot.Path, "host.json")).Build();
        var settings = hostJson.AsEnumerable().Where(p => p.Value is not null)
            .Select(p => new KeyValuePair<string, string?>("AzureFunctionsJobHost:" + p.Key, p.Value))
            .Append(new("AzureWebJobsConfigurationSection", "AzureFunctionsJobHost"));
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var services = new ServiceCollection().AddSingleton<IConfiguration>(configuration).AddSigningQueueTrigger().BuildServiceProvider();

        // Act
        var options = services.GetRequiredService<IOptions<SigningQueueTriggerOptions>>().Value;

        // Assert: the values docs/queue.md explains, and a lease longer than the function timeout.
        Assert.Equal(hostJson.GetValue<int>("extensions:queues:batchSize"), options.BatchSize);
        Assert.Equal(hostJson.GetValue<int>("extensions:queues:newBatchThreshold"), options.EffectiveNewBatchThreshold);
        Assert.Equal(hostJson.GetValue<int>("extensions:queues:maxDequeueCount"), options.MaxDequeueCount);
        Assert.Equal(hostJson.GetValue<TimeSpan>("extensions:queues:visibilityTimeout"), options.VisibilityTimeout);
        Assert.Equal(hostJson.GetValue<TimeSpan>("extensions:queues:maxPollingInterval"), options.MaxPollingInterval);
        Assert.Equal(QueueMessageEncoding.Base64, options.MessageEncoding);
        Assert.True(hostJson.GetValue<TimeSpan>("functionTimeout") < options.MessageLease, "a message's lease must outlast its function");
    }

    [Theory]
    [InlineData("batchSize", "33")]
    [InlineData("newBatchThreshold", "-2")]
    [InlineData("maxDequeueCount", "0")]
    [InlineData("visibilityTimeout", "-00:00:01")]
    [InlineData("maxPollingInterval", "00:00:00.010")]
    public void Validate_BadHostJsonSetting_FailsNamingIt(string key, string value)
    {
        // Arrange
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection([new("AzureWebJobs:extensions:queues:" + key, value)])
            .Build();
        var services = new ServiceCollection().AddSingleton<IConfiguration>(configuration).AddSigningQueueTrigger().BuildServiceProvider();

        // Act
        var error = Assert.Throws<OptionsValidationException>(() => services.GetRequiredService<IOptions<SigningQueueTriggerOptions>>().Value);

        // Assert
        Assert.Contains("extensions.queues." + key, error.Message, StringComparison.Ordinal);
    }
}
