namespace FunctionApp.Tests.Infra.Bicep;

/// <summary>Source the structural reader does not understand: the checks fail rather than guess.</summary>
public sealed class BicepSyntaxException : Exception
{
    public BicepSyntaxException()
    {
    }

    public BicepSyntaxException(string message)
        : base(message)
    {
    }

    public BicepSyntaxException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
