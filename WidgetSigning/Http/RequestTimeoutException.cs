namespace WidgetSigning.Http;

/// <summary>
/// The client sent its body more slowly than <c>Http:MinDataRateBytesPerSecond</c> allows (after the grace period
/// <c>Http:DataRateGracePeriod</c>): 408, so a few slow connections cannot hold the function's slots.
/// </summary>
internal sealed class RequestTimeoutException : Exception
{
    /// <summary>Creates the exception.</summary>
    public RequestTimeoutException()
        : base($"The request body arrived more slowly than {HttpOptions.MinDataRateBytesPerSecondSetting} allows.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public RequestTimeoutException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public RequestTimeoutException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
