using FunctionApp.Queues;

namespace FunctionApp.Tests.Queues;

public sealed class QueueOptionsValidatorTests
{
    private readonly QueueOptionsValidator _validator = new();

    [Fact]
    public void Validate_Defaults_Succeed()
    {
        Assert.True(_validator.Validate(null, new QueueOptions()).Succeeded);
    }

    [Theory]
    [InlineData(nameof(QueueOptions.InlineCanonicalMaxBytes), "Queues:InlineCanonicalMaxBytes")]
    [InlineData(nameof(QueueOptions.Input), "Queues:Input")]
    [InlineData(nameof(QueueOptions.ClaimCheckContainer), "Queues:ClaimCheckContainer")]
    [InlineData(nameof(QueueOptions.MaxClaimCheckBytes), "Queues:MaxClaimCheckBytes")]
    [InlineData(nameof(QueueOptions.Output), "Queues:Input, Output and Rejected")]
    public void Validate_BadSetting_FailsNamingIt(string property, string setting)
    {
        // Arrange
        var options = new QueueOptions();
        switch (property)
        {
            case nameof(QueueOptions.InlineCanonicalMaxBytes): options.InlineCanonicalMaxBytes = 40 * 1024; break;
            case nameof(QueueOptions.Input): options.Input = "Widget_Envelopes"; break;
            case nameof(QueueOptions.ClaimCheckContainer): options.ClaimCheckContainer = "x"; break;
            case nameof(QueueOptions.MaxClaimCheckBytes): options.MaxClaimCheckBytes = 0; break;
            case nameof(QueueOptions.Output): options.Output = options.Input; break;
        }

        // Act
        var result = _validator.Validate(null, options);

        // Assert
        Assert.True(result.Failed);
        Assert.Contains(setting, result.FailureMessage, StringComparison.Ordinal);
    }
}
