/** A file uploaded as the multipart `file` part, as the sender sent it. */
export interface UploadedMedia {
  data: Buffer
  /** The part's filename ('' when none). */
  fileName: string
  contentType?: string
}

/** A picture as an operation takes it: fetched from a URL, uploaded with the request, or base64. */
export interface PictureInput {
  mediaUrl?: string
  upload?: UploadedMedia
  mediaBase64?: string
}

/** Whether any part of a picture was given. */
export function pictureGiven(input: PictureInput | undefined): input is PictureInput {
  return input !== undefined && Object.values(input).some((part) => part !== undefined)
}
