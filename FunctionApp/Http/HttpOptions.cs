using System.ComponentModel.DataAnnotations;

namespace FunctionApp.Http;

/// <summary>Limits of the HTTP adapters (configuration section <c>Http</c>).</summary>
public sealed class HttpOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Http";

    /// <summary>The full name of the <see cref="MaxRequestBodyBytes"/> setting.</summary>
    public const string MaxRequestBodyBytesSetting = SectionName + ":" + nameof(MaxRequestBodyBytes);

    /// <summary>The largest value <see cref="MaxRequestBodyBytes"/> may take: the Functions host's own default body limit, 100 MiB.</summary>
    public const int MaxRequestBodyBytesLimit = 100 * 1024 * 1024;

    /// <summary>
    /// The largest request body <c>/api/sign</c> and <c>/api/verify</c> accept, in bytes; larger bodies get 413, refused
    /// from <c>Content-Length</c> before a byte is read or while a chunked body is read. Setting:
    /// <c>Http:MaxRequestBodyBytes</c>. Default 16 MiB (about 50,000 widgets). Keep the host's own limit,
    /// <c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>, at the same value: the host enforces it before the function runs.
    /// </summary>
    [Range(1, MaxRequestBodyBytesLimit, ErrorMessage = MaxRequestBodyBytesSetting + " must be between {1} and {2} bytes.")]
    public int MaxRequestBodyBytes { get; set; } = 16 * 1024 * 1024;
}
